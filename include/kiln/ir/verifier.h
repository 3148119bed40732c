// The graph invariants every pass must preserve, checked between passes.
#pragma once

#include "kiln/ir/graph.h"

namespace kiln::ir {

// Checks that value and node names are unique, nodes are in topological order, every input is a
// graph input, a constant or an earlier node's output of this graph, producers and output indices
// are consistent, every op is registered, and re-running type inference reproduces every output
// type. Throws kiln::InternalError describing the first violation.
void verifyGraph(const Graph& graph);

}  // namespace kiln::ir
