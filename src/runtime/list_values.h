// Sequences and optionals at an executor's boundary: checking a TensorList against the type a
// model declares, and converting between packed Values and TensorLists.
#pragma once

#include <string>

#include "kiln/runtime/packed_func.h"
#include "kiln/runtime/value_kind.h"

namespace kiln::runtime {

// The declared type of a sequence or optional: its kind and its tensors' dtype and shape
// (UNRANKED: any rank; a dim of -1: any size).
struct ListType {
  ValueKind kind = ValueKind::kSequence;
  DataType dtype;
  Shape shape;
  bool unranked = false;

  std::string str() const;  // "seq(float32[?,3])", "opt(float32[*])"
};

// Throws kiln::Error starting with WHAT when VALUE cannot be held by a value of type TYPE: none
// for a sequence, more than one tensor for an optional tensor, or a tensor of another dtype or
// shape.
void checkList(const std::string& what, const ListType& type, const TensorList& value);

// The list VALUE stands for as an input of type TYPE, with copies of its tensors: a TensorList
// (a sequence, or an optional sequence that holds one), an NDArray (an optional tensor that
// holds one) or none (an optional that holds nothing). Checked with checkList.
TensorList listFromValue(const std::string& what, const ListType& type, const Value& value);

// The inverse, for get_output: copies of LIST's tensors.
Value valueFromList(ValueKind kind, const TensorList& list);

}  // namespace kiln::runtime
