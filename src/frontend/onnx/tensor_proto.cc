// Reading and writing single TensorProto files (ONNX test data, `kiln run --inputs DIR`).
#include "kiln/frontend/onnx/tensor_proto.h"

#include <limits>

#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "tensor_convert.h"

namespace kiln::frontend::onnx {

std::pair<std::string, runtime::NDArray> parseTensorProto(const std::vector<uint8_t>& bytes,
                                                          const std::string& source) {
  ::onnx::TensorProto proto;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(strCat("'", source, "' is not a valid ONNX TensorProto file (", bytes.size(),
                       " bytes that do not parse)"));
  }
  if (!proto.has_data_type() || proto.data_type() == ::onnx::TensorProto::UNDEFINED) {
    throw Error(strCat("'", source, "' is not a valid ONNX TensorProto file: it has no data type"));
  }
  std::string what = strCat("tensor '", proto.name(), "' in '", source, "'");
  return {proto.name(), tensorFromProto(proto, what)};
}

std::pair<std::string, runtime::NDArray> loadNamedTensorProto(const std::string& path) {
  return parseTensorProto(readFile(path), path);
}

runtime::NDArray loadTensorProto(const std::string& path) {
  return loadNamedTensorProto(path).second;
}

std::vector<uint8_t> serializeTensorProto(const runtime::NDArray& tensor, const std::string& name) {
  ::onnx::TensorProto proto;
  proto.set_name(name);
  tensorToProto(tensor, &proto);
  std::string bytes = proto.SerializeAsString();
  return {bytes.begin(), bytes.end()};
}

runtime::NDArray asInputType(const runtime::NDArray& tensor, runtime::DataType want) {
  runtime::DataType u16{kDLUInt, 16, 1}, bf16{kDLBfloat, 16, 1};
  if (want == bf16 && tensor.dtype() == u16) return tensor.view(tensor.shape(), bf16);
  return tensor;
}

void saveTensorProto(const runtime::NDArray& tensor, const std::string& name,
                     const std::string& path) {
  std::vector<uint8_t> bytes = serializeTensorProto(tensor, name);
  writeFileAtomic(path, bytes.data(), bytes.size());
}

}  // namespace kiln::frontend::onnx
