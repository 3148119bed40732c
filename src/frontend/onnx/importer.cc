// Reads and validates a ModelProto, then imports its main graph (graph_importer.h).
#include "kiln/frontend/onnx/importer.h"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "graph_importer.h"
#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "model_check.h"

namespace kiln::frontend::onnx {

std::vector<std::string> supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const std::string& op : ir::registeredOps()) {
    if (op.find('.') == std::string::npos) ops.push_back(op);
  }
  if (std::find(ops.begin(), ops.end(), "Constant") == ops.end()) ops.push_back("Constant");
  std::sort(ops.begin(), ops.end());
  return ops;
}

std::unique_ptr<ir::Graph> importOnnx(const std::vector<uint8_t>& modelBytes,
                                      const ImportOptions& opts, const std::string& source) {
  ::onnx::ModelProto model;
  if (modelBytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw Error(strCat("'", source, "' is ", modelBytes.size(),
                       " bytes; protobuf reads at most 2 GB: save its weights as external data "
                       "(onnx.save_model(model, path, save_as_external_data=True))"));
  }
  if (!model.ParseFromArray(modelBytes.data(), static_cast<int>(modelBytes.size()))) {
    throw Error(strCat("'", source, "' is not a valid ONNX model: its ", modelBytes.size(),
                       " bytes do not parse as an ONNX ModelProto (corrupt or truncated file)"));
  }
  checkModel(model, source);
  return GraphImporter(model.graph(), opts, defaultOpsetVersion(model)).importMain();
}

std::unique_ptr<ir::Graph> importOnnx(const std::string& path, const ImportOptions& opts) {
  if (!fileExists(path)) throw Error(strCat("ONNX model file '", path, "' does not exist"));
  ImportOptions withFolder = opts;
  if (withFolder.externalDataDir.empty()) {
    withFolder.externalDataDir = std::filesystem::path(path).parent_path().string();
    if (withFolder.externalDataDir.empty()) withFolder.externalDataDir = ".";
  }
  return importOnnx(readFile(path), withFolder, path);
}

}  // namespace kiln::frontend::onnx
