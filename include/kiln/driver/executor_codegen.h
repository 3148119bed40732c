// The compiler's executor kinds by name: each turns one lowered model into the metadata (and the
// code) its runtime factory reads. Adding a kind is a file with its generator and one line in
// executor_codegen.cc.
#pragma once

#include <string>
#include <vector>

#include "kiln/codegen/llvm/entry_function.h"
#include "kiln/ir/graph.h"
#include "kiln/kernel/lower.h"
#include "kiln/runtime/artifact.h"
#include "kiln/transform/plan_memory.h"

namespace kiln::driver {

// One model after lowering and memory planning: what every executor generator starts from.
struct LoweredModel {
  std::string name;
  const ir::Graph& graph;
  const std::vector<ir::FusedGroup>& groups;
  const std::vector<kernel::LoweredKernel>& kernels;  // in run order; one per group
  const transform::MemoryPlan& plan;
  const std::vector<std::string>& outputNames;  // the names the model gives its outputs
};

struct ExecutorCode {
  Json metadata;              // the executor's schema, read by its runtime factory
  runtime::ParamList params;  // the weights, named as the metadata names them
  std::vector<codegen::EntryFunction> entries;  // code the executor adds beside the kernels
};

using ExecutorCodegen = ExecutorCode (*)(const LoweredModel& model);

struct ExecutorCodegenKind {
  const char* name;
  ExecutorCodegen generate;
};

const std::vector<ExecutorCodegenKind>& executorCodegens();

// The generator registered as NAME; throws kiln::Error listing the known kinds.
ExecutorCodegen findExecutorCodegen(const std::string& name);

}  // namespace kiln::driver
