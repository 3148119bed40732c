// Tensor, sequence and optional types: their text form (messages, the printer and the parser)
// and how one wraps another.
#include "kiln/ir/graph.h"
#include "kiln/support/error.h"

namespace kiln::ir {

TensorType TensorType::sequenceOf(const TensorType& element) {
  KILN_CHECK(element.isTensor(), "a sequence holds tensors, not ", element.str());
  TensorType t = element;
  t.kind = ValueKind::kSequence;
  return t;
}

TensorType TensorType::optionalOf(const TensorType& element) {
  KILN_CHECK(element.kind == ValueKind::kTensor || element.kind == ValueKind::kSequence,
             "an optional holds a tensor or a sequence, not ", element.str());
  TensorType t = element;
  t.kind = element.isTensor() ? ValueKind::kOptionalTensor : ValueKind::kOptionalSequence;
  return t;
}

TensorType TensorType::element() const {
  KILN_CHECK(!isTensor(), "a tensor ", str(), " holds no element type");
  TensorType t = *this;
  t.kind = kind == ValueKind::kOptionalSequence ? ValueKind::kSequence : ValueKind::kTensor;
  return t;
}

std::string TensorType::str() const { return runtime::typeText(kind, dtype, shape, unranked); }

std::optional<TensorType> joinTypes(const TensorType& a, const TensorType& b) {
  if (a.kind != b.kind || a.dtype != b.dtype) return std::nullopt;
  TensorType out = a;
  if (a.unranked || b.unranked || a.rank() != b.rank()) {
    if (a.isTensor()) return std::nullopt;
    out.shape.clear();
    out.unranked = true;
    return out;
  }
  for (size_t d = 0; d < out.shape.size(); ++d) {
    if (a.shape[d] != b.shape[d]) out.shape[d] = runtime::kDynamicDim;
  }
  return out;
}

bool typeFits(const TensorType& place, const TensorType& held) {
  if (place.kind != held.kind || place.dtype != held.dtype) return false;
  if (place.unranked) return true;
  return !held.unranked && runtime::shapeFits(place.shape, held.shape);
}

}  // namespace kiln::ir
