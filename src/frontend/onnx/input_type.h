// The static type of a model input, from its declaration and the user's --input-shapes.
#pragma once

#include <onnx/onnx_pb.h>

#include "kiln/frontend/onnx/importer.h"
#include "kiln/ir/graph.h"

namespace kiln::frontend::onnx {

// Uses OPTS.inputShapes[name] when given (checked against the declared rank and fixed dims), else
// the declared shape, which must then be fully static. Throws kiln::Error naming the input, the
// axis and the symbolic dim, with the --input-shapes option to use.
ir::TensorType resolveInputType(const ::onnx::ValueInfoProto& input, const ImportOptions& opts);

// Checks a body input's declaration against GIVEN, the type its node gives it: a tensor of the
// same element type and, when it declares a shape, the same rank.
void checkBodyInputType(const ::onnx::ValueInfoProto& input, const ir::TensorType& given);

}  // namespace kiln::frontend::onnx
