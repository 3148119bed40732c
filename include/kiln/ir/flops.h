// How much arithmetic a node does, for per-node GFLOP/s in profiles.
#pragma once

#include <cstdint>

#include "kiln/ir/fused_group.h"

namespace kiln::ir {

// Floating-point operations of NODE, counting a multiply-add as 2: exact for convolutions and
// matrix products (which dominate networks), and an estimate of one operation per element of the
// larger of its first input and its output for everything else.
int64_t nodeFlops(const Node& node);
int64_t groupFlops(const FusedGroup& group);

}  // namespace kiln::ir
