// ONNX defines some operators as functions of others (NegativeLogLikelihoodLoss,
// SoftmaxCrossEntropyLoss, MeanVarianceNormalization, the window functions, ...). An operator kiln
// has no implementation of is imported as its function body, which ONNX's own schema builds for
// the node's attributes and input types at the model's opset.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::frontend::onnx {

// The body of NODE (a default-domain op) as nodes reading NODE's inputs and writing its outputs;
// its own nodes and internal values are named after NAME, which must be unique in the model.
// INPUT_TYPES are the types of NODE's inputs (null for an omitted one). Nothing when ONNX defines
// no function for the op at OPSET; throws kiln::Error naming the op when ONNX fails to build it.
std::optional<std::vector<::onnx::NodeProto>> expandFunction(
    const ::onnx::NodeProto& node, const std::string& name, int64_t opset,
    const std::vector<const ir::TensorType*>& inputTypes);

}  // namespace kiln::frontend::onnx
