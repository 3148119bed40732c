// Building the graph executor's metadata (runtime/graph_executor.h documents the schema).
#pragma once

#include <string>
#include <vector>

#include "kiln/driver/executor_codegen.h"
#include "kiln/ir/graph.h"
#include "kiln/kernel/lower.h"
#include "kiln/runtime/artifact.h"
#include "kiln/transform/plan_memory.h"

namespace kiln::driver {

struct GraphExecutorModel {
  Json metadata;
  runtime::ParamList params;  // every constant a kernel reads, named like its value
};

// KERNELS are in execution order (GROUPS names them); every arg of every kernel must be a graph
// input, a constant or a value the plan places. OUTPUT_NAMES are the names the model gives its
// outputs, which passes may have had to attach to copies under other names.
GraphExecutorModel buildGraphMetadata(const ir::Graph& graph,
                                      const std::vector<ir::FusedGroup>& groups,
                                      const std::vector<kernel::LoweredKernel>& kernels,
                                      const transform::MemoryPlan& plan,
                                      const std::vector<std::string>& outputNames);

// The op types of GROUP's nodes, in order: what a profile shows as "fused".
Json groupOps(const ir::FusedGroup& group);

// The "graph" executor's generator: the metadata above, no code of its own.
ExecutorCode generateGraphExecutor(const LoweredModel& model);

}  // namespace kiln::driver
