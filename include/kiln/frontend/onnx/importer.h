// The ONNX importer: turns a model file (or its bytes) into a graph with static tensor types.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::frontend::onnx {

struct ImportOptions {
  // Shapes for inputs with symbolic or unknown dims, or to pin a dynamic model to one shape: each
  // dim a size or a symbol (bounded in dimBounds). A shape must agree with every fixed dim the
  // model declares.
  std::map<std::string, opdef::DimList> inputShapes;
  // The sizes the symbols of the inputs' dims may take: a declared symbolic dim (ONNX dim_param)
  // named here, and a symbol in inputShapes, is sized at run time within its bounds.
  opdef::DimBounds dimBounds;
  // The folder the locations of external data (initializers kept in files beside the model) are
  // relative to; importing from a file sets it to the file's folder when empty. Empty for a model
  // given as bytes: its external tensors are then refused.
  std::string externalDataDir;
  // The registry the graph's ops come from (a compile context's); null: the builtin one.
  std::shared_ptr<const ir::OpRegistry> ops;
};

// Reads, validates and imports the model at PATH (its external data from beside it, mapped). Throws
// kiln::Error when the file is missing or not a valid ONNX model, or uses an opset domain,
// operator, data type or dynamic shape kiln does not support (the message names the node, op type
// and opset, or the input and dim).
std::unique_ptr<ir::Graph> importOnnx(const std::string& path, const ImportOptions& opts = {});

// The same, for a serialized ModelProto held in memory; SOURCE names it in error messages.
std::unique_ptr<ir::Graph> importOnnx(const std::vector<uint8_t>& modelBytes,
                                      const ImportOptions& opts = {},
                                      const std::string& source = "<memory>");

// The ONNX op types kiln can import, sorted (for error messages and `kiln inspect`).
std::vector<std::string> supportedOnnxOps();

}  // namespace kiln::frontend::onnx
