// Tensor data crosses the ONNX boundary here, so every size and type check lives in one place.
#include "tensor_convert.h"

#include <cstring>
#include <limits>

#include "kiln/support/error.h"

namespace kiln::frontend::onnx {
namespace {

using ::onnx::TensorProto;
using runtime::DataType;
using runtime::NDArray;

// Copies a repeated proto field into TENSOR, converting each element to T.
template <typename T, typename Field>
void copyField(const Field& field, const NDArray& tensor) {
  T* out = tensor.data<T>();
  for (int i = 0; i < field.size(); ++i) out[i] = static_cast<T>(field.Get(i));
}

void copyTypedData(const TensorProto& proto, const NDArray& tensor) {
  switch (proto.data_type()) {
    case TensorProto::FLOAT:
      return copyField<float>(proto.float_data(), tensor);
    case TensorProto::DOUBLE:
      return copyField<double>(proto.double_data(), tensor);
    case TensorProto::INT64:
      return copyField<int64_t>(proto.int64_data(), tensor);
    case TensorProto::UINT32:
      return copyField<uint32_t>(proto.uint64_data(), tensor);
    case TensorProto::UINT64:
      return copyField<uint64_t>(proto.uint64_data(), tensor);
    case TensorProto::INT32:
      return copyField<int32_t>(proto.int32_data(), tensor);
    case TensorProto::INT16:
      return copyField<int16_t>(proto.int32_data(), tensor);
    case TensorProto::INT8:
      return copyField<int8_t>(proto.int32_data(), tensor);
    case TensorProto::UINT16:
    case TensorProto::FLOAT16:   // stored as the uint16 bit pattern
    case TensorProto::BFLOAT16:  // likewise
      return copyField<uint16_t>(proto.int32_data(), tensor);
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return copyField<uint8_t>(proto.int32_data(), tensor);
    case TensorProto::STRING:
      return copyField<std::string>(proto.string_data(), tensor);
    default:
      KILN_CHECK(false, "unhandled ONNX data type ", proto.data_type());
  }
}

// The typed repeated field ONNX stores ELEMTYPE in when raw_data is not used.
const char* typedFieldName(int32_t elemType) {
  switch (elemType) {
    case TensorProto::FLOAT:
      return "float_data";
    case TensorProto::DOUBLE:
      return "double_data";
    case TensorProto::INT64:
      return "int64_data";
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      return "uint64_data";
    case TensorProto::STRING:
      return "string_data";
    default:
      return "int32_data";
  }
}

int64_t storedElements(const TensorProto& proto, DataType dtype) {
  if (proto.has_raw_data()) {
    auto bytes = static_cast<int64_t>(proto.raw_data().size());
    auto size = static_cast<int64_t>(dtype.bytes());
    return bytes % size == 0 ? bytes / size : -1;
  }
  switch (proto.data_type()) {
    case TensorProto::FLOAT:
      return proto.float_data_size();
    case TensorProto::DOUBLE:
      return proto.double_data_size();
    case TensorProto::INT64:
      return proto.int64_data_size();
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      return proto.uint64_data_size();
    case TensorProto::STRING:
      return proto.string_data_size();
    default:
      return proto.int32_data_size();
  }
}

}  // namespace

std::string onnxDataTypeName(int32_t elemType) {
  if (TensorProto::DataType_IsValid(elemType)) {
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(elemType));
  }
  return strCat("<invalid data type ", elemType, ">");
}

DataType dataTypeFromOnnx(int32_t elemType, const std::string& what) {
  switch (elemType) {
    case TensorProto::FLOAT:
      return DataType::float32();
    case TensorProto::DOUBLE:
      return DataType::float64();
    case TensorProto::FLOAT16:
      return DataType::float16();
    case TensorProto::BFLOAT16:
      return {kDLBfloat, 16, 1};
    case TensorProto::INT8:
      return DataType::int8();
    case TensorProto::INT16:
      return {kDLInt, 16, 1};
    case TensorProto::INT32:
      return DataType::int32();
    case TensorProto::INT64:
      return DataType::int64();
    case TensorProto::UINT8:
      return DataType::uint8();
    case TensorProto::UINT16:
      return {kDLUInt, 16, 1};
    case TensorProto::UINT32:
      return {kDLUInt, 32, 1};
    case TensorProto::UINT64:
      return {kDLUInt, 64, 1};
    case TensorProto::BOOL:
      return DataType::boolean();
    case TensorProto::STRING:
      return DataType::string();
    default:
      throw Error(strCat(what, " has data type ", onnxDataTypeName(elemType),
                         ", which kiln does not support; supported: BOOL, INT8, INT16, INT32, "
                         "INT64, UINT8, UINT16, UINT32, UINT64, FLOAT16, BFLOAT16, FLOAT, DOUBLE, "
                         "STRING"));
  }
}

int32_t dataTypeToOnnx(DataType dtype) {
  KILN_CHECK(dtype.lanes == 1, "vector type ", dtype.str(), " has no ONNX equivalent");
  switch (dtype.code) {
    case kDLBool:
      return TensorProto::BOOL;
    case kDLFloat:
      if (dtype.bits == 16) return TensorProto::FLOAT16;
      if (dtype.bits == 32) return TensorProto::FLOAT;
      if (dtype.bits == 64) return TensorProto::DOUBLE;
      break;
    case kDLBfloat:
      if (dtype.bits == 16) return TensorProto::BFLOAT16;
      break;
    case kDLInt:
      if (dtype.bits == 8) return TensorProto::INT8;
      if (dtype.bits == 16) return TensorProto::INT16;
      if (dtype.bits == 32) return TensorProto::INT32;
      if (dtype.bits == 64) return TensorProto::INT64;
      break;
    case runtime::kDLKilnString:
      return TensorProto::STRING;
    case kDLUInt:
      if (dtype.bits == 8) return TensorProto::UINT8;
      if (dtype.bits == 16) return TensorProto::UINT16;
      if (dtype.bits == 32) return TensorProto::UINT32;
      if (dtype.bits == 64) return TensorProto::UINT64;
      break;
    default:
      break;
  }
  throw Error(strCat("data type ", dtype.str(), " has no ONNX TensorProto equivalent"));
}

int64_t checkedNumel(const runtime::Shape& shape, const std::string& what) {
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0) throw Error(strCat(what, " has a negative dim in ", runtime::shapeStr(shape)));
    if (d != 0 && numel > std::numeric_limits<int64_t>::max() / d) {
      throw Error(strCat(what, " has shape ", runtime::shapeStr(shape), ", too large to hold"));
    }
    numel *= d;
  }
  return numel;
}

NDArray tensorFromProto(const TensorProto& proto, const std::string& what) {
  if (proto.data_location() == TensorProto::EXTERNAL || proto.external_data_size() > 0) {
    std::string location;
    for (const auto& kv : proto.external_data()) {
      if (kv.key() == "location") location = kv.value();
    }
    throw Error(strCat(what, " stores its data in an external file ('", location,
                       "'); kiln reads external data for the initializers of a model imported "
                       "from its file (or with ImportOptions::externalDataDir); here the data "
                       "must be inside the model"));
  }
  if (proto.has_segment()) throw Error(strCat(what, " is segmented, which kiln does not support"));
  DataType dtype = dataTypeFromOnnx(proto.data_type(), what);
  if (dtype.isString() && proto.has_raw_data()) {
    throw Error(
        strCat(what, " is a STRING tensor with raw_data; ONNX keeps strings in string_data"));
  }
  runtime::Shape shape(proto.dims().begin(), proto.dims().end());
  int64_t numel = checkedNumel(shape, what);
  // Checked before allocating, so a corrupt dim cannot ask for terabytes.
  if (storedElements(proto, dtype) != numel) {
    std::string type = dtype.str() + runtime::shapeStr(shape);
    if (proto.has_raw_data()) {
      throw Error(strCat(what, " has ", proto.raw_data().size(), " bytes of raw_data; its type ",
                         type, " needs ", numel, " values of ", dtype.bytes(), " bytes"));
    }
    throw Error(strCat(what, " has ", storedElements(proto, dtype), " values in ",
                       typedFieldName(proto.data_type()), "; its type ", type, " needs ", numel));
  }
  NDArray tensor = NDArray::empty(shape, dtype);
  if (proto.has_raw_data()) {
    if (numel > 0) std::memcpy(tensor.data(), proto.raw_data().data(), tensor.nbytes());
  } else if (numel > 0) {
    copyTypedData(proto, tensor);
  }
  return tensor;
}

void tensorToProto(const NDArray& tensor, TensorProto* proto) {
  KILN_CHECK(tensor.defined(), "cannot serialize a null NDArray");
  proto->set_data_type(dataTypeToOnnx(tensor.dtype()));
  proto->clear_dims();
  for (int64_t d : tensor.shape()) proto->add_dims(d);
  if (tensor.dtype().isString()) {
    proto->clear_string_data();
    const auto* strings = tensor.data<std::string>();
    for (int64_t e = 0; e < tensor.numel(); ++e) proto->add_string_data(strings[e]);
    return;
  }
  proto->set_raw_data(tensor.data(), tensor.nbytes());
}

}  // namespace kiln::frontend::onnx
