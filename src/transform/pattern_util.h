// What the pattern-matching passes (fuse-layer-norm, fuse-attention) ask of the nodes they walk.
#pragma once

#include <optional>

#include "kiln/ir/graph.h"

namespace kiln::transform {

// The value of a one-element float32 or float64 constant; nothing for anything else.
std::optional<double> scalarConstant(const ir::Value* v);

// The operand of binary node N that is not V; null when N is not binary or V is not an operand.
ir::Value* otherOperand(const ir::Node& n, const ir::Value* v);

}  // namespace kiln::transform
