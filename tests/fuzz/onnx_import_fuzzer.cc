// Model files come from anywhere, so the ONNX importer must turn any bytes into a verified graph
// or a kiln::Error; this feeds it arbitrary ModelProto bytes.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kiln/frontend/onnx/importer.h"
#include "kiln/ir/verifier.h"
#include "kiln/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  try {
    std::unique_ptr<kiln::ir::Graph> graph = kiln::frontend::onnx::importOnnx(bytes, {}, "fuzz");
    // An imported graph that breaks an invariant is a bug in the importer: the verifier throws
    // InternalError, which is not caught here and so counts as a crash.
    kiln::ir::verifyGraph(*graph);
  } catch (const kiln::Error&) {
  }
  return 0;
}
