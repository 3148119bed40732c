// Checks and conversions of sequence and optional values at an executor's boundary.
#include "list_values.h"

#include "kiln/support/error.h"

namespace kiln::runtime {

std::string ListType::str() const { return typeText(kind, dtype, shape, unranked); }

void checkList(const std::string& what, const ListType& type, const TensorList& value) {
  if (value.none) {
    if (isOptional(type.kind)) return;
    throw Error(strCat(what, ": expected ", type.str(), ", got none"));
  }
  if (type.kind == ValueKind::kOptionalTensor && value.items.size() != 1) {
    throw Error(strCat(what, ": expected ", type.str(), " (one tensor or none), got ",
                       describeList(value)));
  }
  for (size_t i = 0; i < value.items.size(); ++i) {
    const NDArray& a = value.items[i];
    bool fits = a.defined() && a.dtype() == type.dtype &&
                (type.unranked || shapeFits(type.shape, a.shape()));
    if (!fits) {
      throw Error(strCat(what, ": expected ", type.str(), ", got a tensor ",
                         a.defined() ? a.dtype().str() + shapeStr(a.shape()) : "that is null",
                         " at position ", i));
    }
  }
}

TensorList listFromValue(const std::string& what, const ListType& type, const Value& value) {
  bool fits = value.isNone() || (value.isNDArray() && type.kind == ValueKind::kOptionalTensor) ||
              (value.isTensorList() && holdsSequence(type.kind));
  if (!fits) {
    throw Error(strCat(what, ": expected ", type.str(), " (",
                       holdsSequence(type.kind) ? "a TensorList" : "an NDArray",
                       isOptional(type.kind) ? " or none" : "", "), got ", value.typeName()));
  }
  TensorList list = valueToList(value);
  checkList(what, type, list);
  for (NDArray& a : list.items) a = a.clone();
  return list;
}

Value valueFromList(ValueKind kind, const TensorList& list) {
  TensorList copy = list;
  for (NDArray& a : copy.items) a = a.clone();
  return listToValue(std::move(copy), kind);
}

}  // namespace kiln::runtime
