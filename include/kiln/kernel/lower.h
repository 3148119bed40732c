// Lowering a fused group of graph nodes into one kernel of loop IR.
#pragma once

#include <string>
#include <vector>

#include "kiln/ir/fused_group.h"
#include "kiln/ir/graph.h"
#include "kiln/kernel/schedule.h"
#include "kiln/tir/prim_func.h"

namespace kiln::kernel {

using ir::FusedGroup;

struct LoweredKernel {
  tir::PrimFunc func;
  // The values behind func.params, in order: a subset of group.inputs (scalar constants may be
  // folded into the code as immediates) followed by group.outputs.
  std::vector<const ir::Value*> args;
  // The workload and the knobs the lowering chose (what a schedule file or a tuner overrides).
  KernelSchedule schedule;
};

// The kernel's symbol is SYMBOL. Throws kiln::Error when the group holds an op or attribute
// combination kiln cannot lower, naming the node.
LoweredKernel lowerGroup(const FusedGroup& group, const std::string& symbol,
                         const ScheduleConfig& config);

// Throws kiln::InternalError naming F when one of its local buffers exceeds kMaxLocalBufferBytes
// or all of them together exceed kMaxLocalBytesPerKernel (lowerGroup runs it on every kernel).
void checkLocalBuffers(const tir::PrimFunc& f);

// The graph ops the builtin lowering table has kernels for, sorted.
std::vector<std::string> loweredOps();

}  // namespace kiln::kernel
