// What a model value holds: a tensor, or one of ONNX's sequence and optional types, whose run-time
// value is a TensorList.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/runtime/ndarray.h"

namespace kiln::runtime {

enum class ValueKind : uint8_t {
  kTensor,            // a tensor
  kSequence,          // an ordered list of tensors of one dtype (any number, shapes may differ)
  kOptionalTensor,    // a tensor, or none
  kOptionalSequence,  // a sequence, or none
};

// "tensor", "sequence", "optional_tensor", "optional_sequence": the metadata's spelling.
const char* valueKindName(ValueKind kind);
// Throws kiln::Error naming TEXT and the kinds there are.
ValueKind parseValueKind(const std::string& text);
inline bool isOptional(ValueKind k) {
  return k == ValueKind::kOptionalTensor || k == ValueKind::kOptionalSequence;
}
// Whether the value holds a list of tensors when present.
inline bool holdsSequence(ValueKind k) {
  return k == ValueKind::kSequence || k == ValueKind::kOptionalSequence;
}

// "float32[2,?]", "seq(float32[?,3])", "opt(seq(int64[*]))": a value of KIND whose tensors are
// DTYPE and SHAPE ("[*]" when UNRANKED); the text the IR, messages and `kiln inspect` use.
std::string typeText(ValueKind kind, DataType dtype, const Shape& shape, bool unranked);

// The run-time value of a sequence or optional: a sequence's tensors in order; an optional
// tensor's one tensor; an optional sequence's tensors; or, for an optional, none. The tensors are
// owned by the list (never views of an executor's planned memory) and never written after they
// are put in, so lists share them when copied.
struct TensorList {
  std::vector<NDArray> items;
  bool none = false;  // an optional with no value

  static TensorList noValue() { return TensorList{{}, true}; }
};

// "sequence of 3 tensors (float32[2,3], float32[4,3], ...)", "none": for messages.
std::string describeList(const TensorList& list);

}  // namespace kiln::runtime
