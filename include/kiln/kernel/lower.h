// Lowering a fused group of graph nodes into one kernel of loop IR.
#pragma once

#include <string>
#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/kernel/loop_ir.h"
#include "kiln/kernel/schedule.h"

namespace kiln::kernel {

// The nodes of one fused group, in topological order. Inputs are values read from outside the
// group (graph inputs, constants, other groups' outputs); outputs are values used outside it.
struct FusedGroup {
  std::string name;  // kernel symbol name, unique in the artifact
  std::vector<const ir::Node*> nodes;
  std::vector<const ir::Value*> inputs;
  std::vector<const ir::Value*> outputs;
};

struct LoweredKernel {
  PrimFunc func;
  // The values behind func.params, in order: a subset of group.inputs (scalar constants may be
  // folded into the code as immediates) followed by group.outputs.
  std::vector<const ir::Value*> args;
};

// Throws kiln::Error when the group holds an op or attribute combination kiln cannot lower,
// naming the node.
LoweredKernel lowerGroup(const FusedGroup& group, const ScheduleConfig& config);

}  // namespace kiln::kernel
