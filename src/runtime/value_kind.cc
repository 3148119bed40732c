// Names of value kinds and the text form of tensor lists.
#include "kiln/runtime/value_kind.h"

#include "kiln/support/error.h"

namespace kiln::runtime {

const char* valueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kTensor:
      return "tensor";
    case ValueKind::kSequence:
      return "sequence";
    case ValueKind::kOptionalTensor:
      return "optional_tensor";
    case ValueKind::kOptionalSequence:
      return "optional_sequence";
  }
  return "?";
}

ValueKind parseValueKind(const std::string& text) {
  for (ValueKind k : {ValueKind::kTensor, ValueKind::kSequence, ValueKind::kOptionalTensor,
                      ValueKind::kOptionalSequence}) {
    if (text == valueKindName(k)) return k;
  }
  throw Error(strCat("unknown value kind '", text,
                     "'; expected tensor, sequence, optional_tensor or optional_sequence"));
}

std::string typeText(ValueKind kind, DataType dtype, const Shape& shape, bool unranked) {
  std::string tensor = dtype.str() + (unranked ? std::string("[*]") : shapeStr(shape));
  switch (kind) {
    case ValueKind::kTensor:
      break;
    case ValueKind::kSequence:
      return "seq(" + tensor + ")";
    case ValueKind::kOptionalTensor:
      return "opt(" + tensor + ")";
    case ValueKind::kOptionalSequence:
      return "opt(seq(" + tensor + "))";
  }
  return tensor;
}

std::string describeList(const TensorList& list) {
  if (list.none) return "none";
  constexpr size_t kShown = 4;
  std::string s = strCat("list of ", list.items.size(), " tensors");
  if (list.items.empty()) return s;
  s += " (";
  for (size_t i = 0; i < list.items.size() && i < kShown; ++i) {
    const NDArray& a = list.items[i];
    s += strCat(i ? ", " : "", a.dtype().str(), shapeStr(a.shape()));
  }
  return s + (list.items.size() > kShown ? ", ...)" : ")");
}

}  // namespace kiln::runtime
