// Timing a packed function where it runs: the one measurement loop of `kiln run --print-time`,
// the RPC server's time evaluator and the Python bindings' benchmark(), so their figures agree.
#pragma once

#include <vector>

#include "kiln/runtime/packed_func.h"

namespace kiln::runtime {

// One untimed call of F(ARGS) (it warms caches and lazy state), then REPEAT measurements of NUMBER
// calls each; returns each measurement's mean time per call in milliseconds. Throws kiln::Error
// naming the counts unless both are >= 1.
std::vector<double> timeEvaluate(const PackedFunc& f, const Args& args, int64_t repeat,
                                 int64_t number);

}  // namespace kiln::runtime
