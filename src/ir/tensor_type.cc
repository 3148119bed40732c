// Tensor, sequence and optional types: their text form (messages, the printer and the parser)
// and how one wraps another.
#include "kiln/ir/graph.h"
#include "kiln/opdef/op_view.h"
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

opdef::Dim TensorType::dim(size_t i) const {
  KILN_CHECK(i < shape.size(), "dim ", i, " of ", str());
  if (shape[i] != runtime::kDynamicDim) return shape[i];
  return symbolicDims.empty() ? opdef::Dim::unknown() : symbolicDims[i];
}

bool TensorType::isBounded() const {
  if (!isTensor() || dtype.isString()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (dim(i).isUnknown()) return false;
  }
  return true;
}

std::optional<Shape> TensorType::capacity(const opdef::DimBounds& bounds) const {
  if (isStatic()) return shape;
  if (!isBounded()) return std::nullopt;
  Shape out;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::optional<opdef::SizeRange> r = dim(i).range(bounds);
    if (!r) return std::nullopt;
    out.push_back(r->max);
  }
  return out;
}

std::vector<opdef::Dim> TensorType::dims() const {
  std::vector<opdef::Dim> all;
  for (size_t i = 0; i < shape.size(); ++i) all.push_back(dim(i));
  return all;
}

void TensorType::setDims(const std::vector<opdef::Dim>& all) {
  shape.clear();
  bool symbolic = false;
  for (const opdef::Dim& d : all) {
    shape.push_back(d.valueOr(runtime::kDynamicDim));
    symbolic = symbolic || d.isSymbolic();
  }
  symbolicDims = symbolic ? all : std::vector<opdef::Dim>{};
}

TensorType TensorType::of(DataType dtype, const std::vector<opdef::Dim>& dims) {
  TensorType t{dtype, {}};
  t.setDims(dims);
  return t;
}

std::string TensorType::str() const {
  if (symbolicDims.empty() || unranked) return runtime::typeText(kind, dtype, shape, unranked);
  // The runtime's text with each symbolic size in place of its '?'.
  std::string text = runtime::typeText(kind, dtype, {}, false);
  return text.replace(text.find("[]"), 2, opdef::dimListStr(dims()));
}

std::optional<TensorType> joinTypes(const TensorType& a, const TensorType& b) {
  if (a.kind != b.kind || a.dtype != b.dtype) return std::nullopt;
  TensorType out = a;
  if (a.unranked || b.unranked || a.rank() != b.rank()) {
    if (a.isTensor()) return std::nullopt;
    out.shape.clear();
    out.unranked = true;
    return out;
  }
  std::vector<opdef::Dim> dims = a.dims();
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!opdef::sameSize(dims[d], b.dim(d))) dims[d] = opdef::Dim::unknown();
  }
  out.setDims(dims);
  return out;
}

bool typeFits(const TensorType& place, const TensorType& held) {
  if (place.kind != held.kind || place.dtype != held.dtype) return false;
  if (place.unranked) return true;
  return !held.unranked && runtime::shapeFits(place.shape, held.shape);
}

}  // namespace kiln::ir
