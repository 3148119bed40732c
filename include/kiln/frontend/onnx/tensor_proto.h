// Single-tensor files in ONNX TensorProto format: the ONNX backend test data and `kiln run
// --inputs`.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kiln/runtime/ndarray.h"
#include "kiln/runtime/value_kind.h"

namespace kiln::frontend::onnx {

// Supported element types: bool, int8..int64, uint8..uint64, float16, bfloat16, float32, float64.
// Throws kiln::Error naming the file for a missing or malformed file, an unsupported data type or
// external data.
runtime::NDArray loadTensorProto(const std::string& path);
// The tensor and its `name` field ("" when the file has none).
std::pair<std::string, runtime::NDArray> loadNamedTensorProto(const std::string& path);
// The same, from serialized bytes; SOURCE names them in error messages.
std::pair<std::string, runtime::NDArray> parseTensorProto(const std::vector<uint8_t>& bytes,
                                                          const std::string& source);

// TENSOR as the input of type WANT it stands for: the ONNX test data of this ONNX release stores
// bfloat16 tensors as UINT16 bit patterns, so a uint16 tensor for a bfloat16 input is viewed as
// bfloat16; any other tensor is returned as it is.
runtime::NDArray asInputType(const runtime::NDArray& tensor, runtime::DataType want);

// Serializes TENSOR (with raw_data) under NAME.
std::vector<uint8_t> serializeTensorProto(const runtime::NDArray& tensor, const std::string& name);
// Writes it to PATH atomically (a temporary file renamed over PATH).
void saveTensorProto(const runtime::NDArray& tensor, const std::string& name,
                     const std::string& path);

// Sequence and optional values (ONNX's SequenceProto and OptionalProto files, as the backend
// test data stores them): a sequence of tensors for KIND kSequence, an optional holding a tensor,
// a sequence of tensors or nothing for the optional kinds. Throws kiln::Error naming the file
// when it does not parse as that kind or holds something else (maps, sparse tensors, nested
// sequences).
runtime::TensorList loadListProto(const std::string& path, runtime::ValueKind kind);
runtime::TensorList parseListProto(const std::vector<uint8_t>& bytes, const std::string& source,
                                   runtime::ValueKind kind);
std::vector<uint8_t> serializeListProto(const runtime::TensorList& list, runtime::ValueKind kind,
                                        const std::string& name);
// Writes it to PATH atomically.
void saveListProto(const runtime::TensorList& list, runtime::ValueKind kind,
                   const std::string& name, const std::string& path);

}  // namespace kiln::frontend::onnx
