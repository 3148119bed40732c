// What the pattern-matching passes ask of the nodes they walk: constants' values, operands.
#include "pattern_util.h"

namespace kiln::transform {

std::optional<double> scalarConstant(const ir::Value* v) {
  if (v == nullptr || !v->isConstant() || v->type.numel() != 1) return std::nullopt;
  if (v->type.dtype == runtime::DataType::float32()) return v->constant->data<float>()[0];
  if (v->type.dtype == runtime::DataType::float64()) return v->constant->data<double>()[0];
  return std::nullopt;
}

ir::Value* otherOperand(const ir::Node& n, const ir::Value* v) {
  if (n.inputs.size() != 2) return nullptr;
  return n.inputs[0] == v ? n.inputs[1] : n.inputs[1] == v ? n.inputs[0] : nullptr;
}

}  // namespace kiln::transform
