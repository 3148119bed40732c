// Single-tensor .pb files (ONNX test data, `kiln run --inputs DIR`) come from users; any bytes
// must give a tensor or a kiln::Error.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kiln/frontend/onnx/tensor_proto.h"
#include "kiln/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    kiln::frontend::onnx::parseTensorProto(std::vector<uint8_t>(data, data + size), "fuzz.pb");
  } catch (const kiln::Error&) {
  }
  return 0;
}
