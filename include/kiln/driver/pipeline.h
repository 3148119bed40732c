// The optimisation pipeline as one ordered list of passes, chosen by opt level.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/ir/pass.h"

namespace kiln::driver {

// 0: none (every node becomes its own kernel); 1: fold-constants, simplify;
// 2: + fold-batch-norm, fuse-layer-norm, convert-layout and pack-matmul (blocks and panels of
// LANES, the target's fp32 vector lanes); 3: + fuse-ops, concat-in-place. Throws kiln::Error for a
// level outside 0..3.
std::vector<ir::Pass> buildPipeline(int optLevel, int64_t lanes = 16);

}  // namespace kiln::driver
