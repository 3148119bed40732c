// ONNX TypeProto <-> kiln's types for sequences and optionals (ONNX's sequence_type and
// optional_type), whose tensors may have symbolic dims or no known rank.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "kiln/ir/graph.h"

namespace kiln::frontend::onnx {

// Whether TYPE is a sequence or optional type.
bool isListType(const ::onnx::TypeProto& type);

// TYPE (a tensor, sequence, optional of a tensor or optional of a sequence) with its tensors'
// symbolic and unknown dims sized at run time, and no shape making them unranked. Throws
// kiln::Error naming WHAT for maps, sparse tensors, nested sequences and undefined types.
ir::TensorType typeFromProto(const ::onnx::TypeProto& type, const std::string& what);

// The inverse: dims sized at run time are left without a value, unranked tensors without shape.
::onnx::TypeProto typeToProto(const ir::TensorType& type);

}  // namespace kiln::frontend::onnx
