// The per-op constant evaluators behind evaluateConstant, grouped by family.
#pragma once

#include <optional>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir::eval {

using Outputs = std::optional<std::vector<NDArray>>;
// Evaluates NODE, whose inputs are constants (except Shape's and Size's) and whose output types are
// OUT; nullopt when the dtypes are ones the evaluator does not handle.
using Evaluator = Outputs (*)(const Node& node, const std::vector<TensorType>& out);

// Inputs' data, by index (the node's non-omitted inputs are constants).
inline const NDArray& in(const Node& node, size_t i) { return *node.inputs[i]->constant; }

Outputs evalConstant(const Node& node, const std::vector<TensorType>& out);
Outputs evalShape(const Node& node, const std::vector<TensorType>& out);
Outputs evalSize(const Node& node, const std::vector<TensorType>& out);
Outputs evalConstantOfShape(const Node& node, const std::vector<TensorType>& out);
Outputs evalRange(const Node& node, const std::vector<TensorType>& out);

Outputs evalSameData(const Node& node, const std::vector<TensorType>& out);  // reshape-likes
Outputs evalGather(const Node& node, const std::vector<TensorType>& out);
Outputs evalConcat(const Node& node, const std::vector<TensorType>& out);
Outputs evalSplit(const Node& node, const std::vector<TensorType>& out);
Outputs evalSlice(const Node& node, const std::vector<TensorType>& out);
Outputs evalExpand(const Node& node, const std::vector<TensorType>& out);
Outputs evalTranspose(const Node& node, const std::vector<TensorType>& out);

Outputs evalArithmetic(const Node& node, const std::vector<TensorType>& out);  // Add/Sub/Mul/Div
Outputs evalNeg(const Node& node, const std::vector<TensorType>& out);
Outputs evalEqual(const Node& node, const std::vector<TensorType>& out);
Outputs evalWhere(const Node& node, const std::vector<TensorType>& out);
Outputs evalCast(const Node& node, const std::vector<TensorType>& out);

Outputs evalCompare(const Node& node, const std::vector<TensorType>& out);  // Less, Greater, ...
Outputs evalLogical(const Node& node, const std::vector<TensorType>& out);  // And/Or/Xor/Not
Outputs evalMinMax(const Node& node, const std::vector<TensorType>& out);   // variadic
Outputs evalMod(const Node& node, const std::vector<TensorType>& out);

}  // namespace kiln::ir::eval
