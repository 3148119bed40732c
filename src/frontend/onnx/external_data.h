// Tensors whose data an ONNX model keeps in files beside it (TensorProto.external_data: location,
// offset, length), as models over protobuf's 2 GB limit must: each file is mapped read-only once
// and its tensors are views of the mapping, so the weights are never copied into the heap.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <string>

#include "kiln/runtime/ndarray.h"
#include "kiln/support/mapped_file.h"

namespace kiln::frontend::onnx {

// Whether PROTO keeps its data in an external file.
bool isExternal(const ::onnx::TensorProto& proto);

class ExternalData {
 public:
  // BASE_DIR: the folder locations are relative to (the model file's); empty when the model has
  // none (given as bytes), which makes every external tensor an error.
  explicit ExternalData(std::string baseDir) : baseDir_(std::move(baseDir)) {}

  // PROTO's data as a read-only view of its file. Throws kiln::Error naming WHAT, the file and
  // what was expected for a location outside the base folder, a missing file, a range past the
  // file's end, a length that is not the tensor's size, or a string tensor.
  runtime::NDArray load(const ::onnx::TensorProto& proto, const std::string& what);

 private:
  std::shared_ptr<const MappedFile> fileFor(const std::string& location, const std::string& what);

  std::string baseDir_;
  std::map<std::string, std::shared_ptr<const MappedFile>> files_;  // by resolved path
};

}  // namespace kiln::frontend::onnx
