// The ONNX element type table, kept here (not in the frontend) because Cast's semantics in the IR
// depend on it.
#include "kiln/ir/onnx_dtype.h"

#include <array>

#include "kiln/support/error.h"

namespace kiln::ir {

namespace {

struct Entry {
  int64_t code;
  const char* name;
  DataType type;
};

const std::array<Entry, 14>& table() {
  static const std::array<Entry, 14> kTable = {{
      {1, "FLOAT", DataType::float32()},
      {2, "UINT8", DataType::uint8()},
      {3, "INT8", DataType::int8()},
      {4, "UINT16", {kDLUInt, 16, 1}},
      {5, "INT16", {kDLInt, 16, 1}},
      {6, "INT32", DataType::int32()},
      {7, "INT64", DataType::int64()},
      {8, "STRING", DataType::string()},
      {9, "BOOL", DataType::boolean()},
      {10, "FLOAT16", DataType::float16()},
      {11, "DOUBLE", DataType::float64()},
      {12, "UINT32", {kDLUInt, 32, 1}},
      {13, "UINT64", {kDLUInt, 64, 1}},
      {16, "BFLOAT16", {kDLBfloat, 16, 1}},
  }};
  return kTable;
}

}  // namespace

DataType dataTypeFromOnnx(int64_t code) {
  for (const Entry& e : table()) {
    if (e.code == code) return e.type;
  }
  if (code == 14 || code == 15) {
    throw Error(
        strCat("ONNX data type ", code, " (COMPLEX) is not supported; expected a real type"));
  }
  throw Error(strCat("ONNX data type code ", code,
                     " is not supported; expected 1..13 or 16 (FLOAT, UINT8, ... BFLOAT16)"));
}

DataType numericTypeFromOnnx(int64_t code) {
  DataType t = dataTypeFromOnnx(code);
  if (t.isString())
    throw Error("ONNX data type 8 (STRING) is not supported here; expected a numeric type");
  return t;
}

DataType dataTypeFromOnnxName(const std::string& name) {
  for (const Entry& e : table()) {
    if (name == e.name) return e.type;
  }
  throw Error(
      strCat("ONNX data type name '", name, "' is not supported; expected FLOAT, INT64, ..."));
}

int64_t onnxDataTypeCode(DataType t) {
  for (const Entry& e : table()) {
    if (e.type == t) return e.code;
  }
  throw Error(strCat("data type ", t.str(), " has no ONNX type code"));
}

}  // namespace kiln::ir
