// The optimisation pipeline as one ordered list of passes, chosen by opt level.
#pragma once

#include <vector>

#include "kiln/ir/pass.h"

namespace kiln::driver {

// 0: none (every node becomes its own kernel); 1: fold-constants, simplify;
// 2: + fold-batch-norm; 3: + fuse-ops. Throws kiln::Error for a level outside 0..3.
std::vector<ir::Pass> buildPipeline(int optLevel);

}  // namespace kiln::driver
