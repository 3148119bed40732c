// Type inference of normalisations: inference-mode BatchNormalization and Softmax/LogSoftmax
// (whose axis semantics changed in opset 13).
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferBatchNorm(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  requireFloat(node, 0);
  requireRankAtLeast(node, 0, 2, "N and C dims");
  if (node.attrs.getInt("training_mode", 0) != 0) {
    fail(node, "training_mode=1 is not supported; expected 0 (kiln compiles inference only)");
  }
  if (node.attrs.getInt("spatial", 1) != 1) {
    fail(node, "spatial=0 (per-activation statistics) is not supported; expected spatial=1");
  }
  requireOutputsAtMost(node, 1, "the running mean/variance outputs exist only in training mode");
  node.attrs.getFloat("epsilon", 1e-5);
  static const char* const kNames[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i < 5; ++i) {
    const TensorType& p = inputType(node, i, kNames[i]);
    requireFloat(node, i);
    if (p.shape != Shape{x.shape[1]}) {
      fail(node, kNames[i], " (input ", i, ") is ", p.str(), "; expected [", x.shape[1],
           "] (one value per channel of X ", x.str(), ")");
    }
  }
  setOutput(node, 0, x);
}

void inferSoftmax(Node& node) {
  const TensorType& x = inputType(node, 0);
  requireFloat(node, 0);
  requireRankAtLeast(node, 0, 1, "softmax needs an axis");
  if (node.attrs.has("axis")) normalizeAxis(node, node.attrs.getInt("axis"), x.rank());
  setOutput(node, 0, x);
}

}  // namespace

void registerNormalizationOps(const OpAdder& add) {
  add({.name = "BatchNormalization",
       .opClass = OpClass::kBroadcast,
       .minInputs = 5,
       .maxInputs = 5,
       .numOutputs = 5,
       .sinceVersion = 7,
       .inferTypes = inferBatchNorm});
  add({.name = "Softmax",
       .opClass = OpClass::kReduction,
       .sinceVersion = 1,
       .inferTypes = inferSoftmax});
  add({.name = "LogSoftmax",
       .opClass = OpClass::kReduction,
       .sinceVersion = 1,
       .inferTypes = inferSoftmax});
}

}  // namespace kiln::ir::ops

namespace kiln::ir {

std::vector<int64_t> softmaxAxes(const Node& node, int64_t opsetVersion) {
  using ops::normalizeAxis;
  KILN_CHECK(!node.inputs.empty() && node.inputs[0], "softmaxAxes needs the node's input");
  int64_t rank = node.inputs[0]->type.rank();
  if (rank == 0) return {};
  bool flattening = opsetVersion < 13;
  int64_t axis =
      normalizeAxis(node, node.attrs.getInt("axis", flattening ? 1 : -1), rank, "axis", flattening);
  if (!flattening) return {axis};
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
  return axes;
}

}  // namespace kiln::ir
