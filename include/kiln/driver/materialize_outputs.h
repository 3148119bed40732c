// Making every graph output a value some kernel writes into its own buffer.
#pragma once

#include "kiln/ir/graph.h"

namespace kiln::driver {

// A graph output that is a graph input, a constant, or listed more than once gets an Identity
// (a copy kernel), because outputs live in storages of their own that executors fill in run().
void materializeOutputs(ir::Graph& graph);

}  // namespace kiln::driver
