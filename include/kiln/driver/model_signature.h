// The part of a model every executor kind shares (runtime::ArtifactModel::signature).
#pragma once

#include <string>
#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/support/json.h"
#include "kiln/transform/plan_memory.h"

namespace kiln::driver {

// {"name", "shape", "dtype"} of a tensor named NAME of TYPE.
Json tensorSignature(const std::string& name, const ir::TensorType& type);

// {"inputs": [{"name", "shape", "dtype"}], "outputs": [...], "workspace_bytes": N,
//  "num_params": N}; OUTPUT_NAMES are the names the model gives its outputs.
Json modelSignature(const ir::Graph& graph, const transform::MemoryPlan& plan,
                    const std::vector<std::string>& outputNames, size_t numParams);

}  // namespace kiln::driver
