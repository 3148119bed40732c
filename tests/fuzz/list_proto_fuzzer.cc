// Sequence and optional inputs (`kiln run --inputs DIR` with SequenceProto and OptionalProto
// files, as the ONNX test data stores them) come from users; any bytes must give a list of
// tensors or a kiln::Error, read as either kind.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kiln/frontend/onnx/tensor_proto.h"
#include "kiln/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  for (kiln::runtime::ValueKind kind :
       {kiln::runtime::ValueKind::kSequence, kiln::runtime::ValueKind::kOptionalTensor,
        kiln::runtime::ValueKind::kOptionalSequence}) {
    try {
      kiln::runtime::TensorList list = kiln::frontend::onnx::parseListProto(bytes, "fuzz.pb", kind);
      // What was read serializes and reads back as the same tensors.
      kiln::runtime::TensorList again = kiln::frontend::onnx::parseListProto(
          kiln::frontend::onnx::serializeListProto(list, kind, "x"), "again.pb", kind);
      if (again.none != list.none || again.items.size() != list.items.size()) __builtin_trap();
    } catch (const kiln::Error&) {
    }
  }
  return 0;
}
