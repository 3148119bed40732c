// Checks and conversions of sequence and optional values at an executor's boundary.
#include "list_values.h"

#include "kiln/support/error.h"

namespace kiln::runtime {

std::string ListType::str() const {
  std::string tensor = dtype.str() + (unranked ? std::string("[*]") : shapeStr(shape));
  switch (kind) {
    case ValueKind::kSequence:
      return "seq(" + tensor + ")";
    case ValueKind::kOptionalTensor:
      return "opt(" + tensor + ")";
    case ValueKind::kOptionalSequence:
      return "opt(seq(" + tensor + "))";
    case ValueKind::kTensor:
      break;
  }
  return tensor;
}

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
  TensorList list;
  if (value.isNone()) {
    list.none = true;
  } else if (value.isNDArray() && type.kind == ValueKind::kOptionalTensor) {
    list.items.push_back(value.asNDArray());
  } else if (value.isTensorList() && holdsSequence(type.kind)) {
    list = value.asTensorList();
  } else {
    throw Error(strCat(what, ": expected ", type.str(), " (",
                       holdsSequence(type.kind) ? "a TensorList" : "an NDArray",
                       isOptional(type.kind) ? " or none" : "", "), got ", value.typeName()));
  }
  checkList(what, type, list);
  for (NDArray& a : list.items) a = a.clone();
  return list;
}

Value valueFromList(ValueKind kind, const TensorList& list) {
  if (list.none) return Value();
  if (kind == ValueKind::kOptionalTensor) return Value(list.items.at(0).clone());
  TensorList copy;
  for (const NDArray& a : list.items) copy.items.push_back(a.clone());
  return Value(std::move(copy));
}

}  // namespace kiln::runtime
