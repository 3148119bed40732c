// Conversions between ONNX TensorProto and kiln NDArray, shared by the importer and tensor files.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

#include "kiln/runtime/ndarray.h"

namespace kiln::frontend::onnx {

// The kiln type of an ONNX TensorProto::DataType; throws kiln::Error naming WHAT (e.g.
// "input 'x'") for types kiln does not support (string, complex, bfloat16 ...).
runtime::DataType dataTypeFromOnnx(int32_t elemType, const std::string& what);
int32_t dataTypeToOnnx(runtime::DataType dtype);
// "FLOAT", "STRING", ... for messages.
std::string onnxDataTypeName(int32_t elemType);

// The element count of SHAPE; throws kiln::Error naming WHAT for a negative dim or an overflow.
int64_t checkedNumel(const runtime::Shape& shape, const std::string& what);

// Copies the tensor's data (raw_data or the typed field); throws kiln::Error naming WHAT when the
// data is external, missing, of the wrong size or of an unsupported type.
runtime::NDArray tensorFromProto(const ::onnx::TensorProto& proto, const std::string& what);
// Fills PROTO's dims, data_type and raw_data (little-endian, as ONNX requires).
void tensorToProto(const runtime::NDArray& tensor, ::onnx::TensorProto* proto);

}  // namespace kiln::frontend::onnx
