// Compile-time evaluation of the shape-computation ops that exporters emit (Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape chains), used by the importer and the fold-constants pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// How many bytes of constants folding may still create, for one import or one pass run. Twice the
// graph's own constants plus kFoldAllowance keeps the memory and time any model costs at compile
// time in proportion to its size: a few bytes of ONNX once asked ConstantOfShape for terabytes,
// and folds chained after one large constant add up.
class FoldBudget {
 public:
  explicit FoldBudget(uint64_t bytes) : remaining_(bytes) {}
  // 2 x the bytes of GRAPH's constants + kFoldAllowance.
  static FoldBudget forGraph(const Graph& graph);
  uint64_t remaining() const { return remaining_; }
  // Takes BYTES and returns true, or takes nothing and returns false when fewer remain.
  bool take(uint64_t bytes);

 private:
  uint64_t remaining_;
};

// 16 MiB: far above any shape computation, and enough for the masks and position tables exporters
// build with ConstantOfShape, Range and Expand.
inline constexpr uint64_t kFoldAllowance = uint64_t{16} << 20;

// NODE's outputs, computed on the CPU, when every non-omitted input is a constant (Shape and Size:
// always, their input's type is static) and the op is one of: Constant, Identity, Shape, Size,
// Gather, Unsqueeze, Squeeze, Concat, Reshape, Flatten, Cast, Split, Slice, ConstantOfShape, Range,
// Expand, Transpose, and Add/Sub/Mul/Div/Neg/Equal/Less/Greater/LessOrEqual/GreaterOrEqual/Min/
// Max/Mod on int32/int64/float32/float64, And/Or/Xor/Not, Where. nullopt otherwise. The result
// follows ONNX exactly (integer Div truncates toward zero, integer overflow wraps, float -> int
// Cast truncates and saturates). Does not need NODE's output types to be set: it infers them
// itself. Also nullopt, with nothing computed, when the outputs would take more than BUDGET has
// left (such nodes stay in the graph and run at run time); otherwise their bytes are taken from
// it. Throws kiln::Error naming the node when type inference fails or an integer Div divides by 0.
// Also a node whose one output's elements type inference found all constant (Value::
// symbolicValue: dim 2 of Shape([1,seq,768])), whatever its inputs.
std::optional<std::vector<NDArray>> evaluateConstant(const Node& node, FoldBudget& budget);
// The same with a budget of its own: twice NODE's constant inputs plus kFoldAllowance.
std::optional<std::vector<NDArray>> evaluateConstant(const Node& node);

// Replaces NODE by constants holding VALUES (one per output, as evaluateConstant returns them),
// each keeping its output's name; every use is rewired. Returns the constants in output order.
std::vector<Value*> replaceWithConstants(Graph& graph, Node* node, std::vector<NDArray> values);

// Whether evaluateConstant knows OP at all (it may still decline for some dtypes).
bool isConstantEvaluable(const std::string& op);

}  // namespace kiln::ir
