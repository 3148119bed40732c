// ONNX TensorProto element type codes, which Cast's `to` and other attributes hold in the IR.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// 1 -> float32, 7 -> int64, 8 -> string, ...; throws kiln::Error for codes kiln does not support
// (complex) or that do not exist.
DataType dataTypeFromOnnx(int64_t code);
// The same for an attribute that names a numeric type (EyeLike's dtype, ...): STRING is refused.
DataType numericTypeFromOnnx(int64_t code);
// Opset-1 Cast spells types as strings: "FLOAT", "INT64", ...
DataType dataTypeFromOnnxName(const std::string& name);
// The inverse of dataTypeFromOnnx; throws kiln::Error for types ONNX has no code for.
int64_t onnxDataTypeCode(DataType t);

}  // namespace kiln::ir
