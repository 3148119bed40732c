// Fused groups: the unit that becomes one kernel, read off the `group` annotations of a graph.
#pragma once

#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// The nodes of one fused group, in topological order. Inputs are values read from outside the
// group (graph inputs, constants, other groups' outputs) in first-use order; outputs are the
// group's values used outside it (by other groups or as graph outputs), in node order.
struct FusedGroup {
  std::string name;  // derived from the first node's name, unique in the graph, symbol-safe
  std::vector<const Node*> nodes;
  std::vector<const Value*> inputs;
  std::vector<const Value*> outputs;
};

// Groups in execution order. Nodes with group == -1 form a group of their own. Throws
// InternalError when a group's nodes are not contiguous-schedulable (a cycle between groups).
std::vector<FusedGroup> collectGroups(const Graph& graph);

// A C-identifier-safe form of NAME ("/layer1/conv.0" -> "layer1_conv_0").
std::string symbolSafe(const std::string& name);

}  // namespace kiln::ir
