// Compile-time evaluation of the shape-computation ops that exporters emit (Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape chains), used by the importer and the fold-constants pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// NODE's outputs, computed on the CPU, when every non-omitted input is a constant (Shape and Size:
// always, their input's type is static) and the op is one of: Constant, Identity, Shape, Size,
// Gather, Unsqueeze, Squeeze, Concat, Reshape, Flatten, Cast, Slice, ConstantOfShape, Range,
// Expand, Transpose, and Add/Sub/Mul/Div/Neg/Equal/Less/Greater/LessOrEqual/GreaterOrEqual/Min/
// Max/Mod on int32/int64/float32/float64, And/Or/Xor/Not, Where. nullopt otherwise. The result
// follows ONNX exactly (integer Div truncates toward zero, integer overflow wraps, float -> int
// Cast truncates and saturates). Does not need NODE's output types to be set: it infers them
// itself. Also nullopt when an output would take more than kMaxGrownFoldBytes and more than the
// node's distinct constant inputs together: such nodes stay in the graph and run at run time, so a
// few bytes of model cannot make the compiler allocate gigabytes. Throws kiln::Error naming the
// node when type inference fails or an integer Div divides by 0.
std::optional<std::vector<NDArray>> evaluateConstant(const Node& node);

// 64 MiB: far above any shape computation, and above the masks and position tables exporters
// build from ConstantOfShape and Range.
inline constexpr uint64_t kMaxGrownFoldBytes = uint64_t{64} << 20;

// Replaces NODE by constants holding VALUES (one per output, as evaluateConstant returns them),
// each keeping its output's name; every use is rewired. Returns the constants in output order.
std::vector<Value*> replaceWithConstants(Graph& graph, Node* node, std::vector<NDArray> values);

// Whether evaluateConstant knows OP at all (it may still decline for some dtypes).
bool isConstantEvaluable(const std::string& op);

}  // namespace kiln::ir
