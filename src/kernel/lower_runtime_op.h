// A runtime-op kernel: a node the runtime executes (kiln/runtime/runtime_op.h) instead of code
// kiln compiles, because its shapes are known only at run time or because kiln has no compiled
// kernel for its op.
#pragma once

#include <string>

#include "kiln/kernel/lower.h"
#include "kiln/kernel/lowering_table.h"

namespace kiln::kernel {

// Whether GROUP (one node) runs in the runtime: its shapes are known only at run time, or
// LOWERINGS has no kernel for its op and the runtime executes that op.
bool runsInRuntime(const FusedGroup& group, const LoweringTable& lowerings);

// GROUP must satisfy runsInRuntime. Throws kiln::Error naming the node when the runtime does not
// execute its op.
LoweredKernel lowerRuntimeOp(const FusedGroup& group, const std::string& symbol);

}  // namespace kiln::kernel
