// Type inference of normalisations: inference-mode BatchNormalization, Instance- and
// LayerNormalization, LRN, and Softmax/LogSoftmax/Hardmax (whose axis semantics changed in opset
// 13).
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferBatchNorm(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  requireFloat(node, 0);
  requireRankAtLeast(node, 0, 2, "N and C dims");
  bool training = node.attrs.getInt("training_mode", 0) != 0;
  if (node.attrs.getInt("spatial", 1) != 1) {
    fail(node, "spatial=0 (per-activation statistics) is not supported; expected spatial=1");
  }
  if (!training) {
    requireOutputsAtMost(node, 1, "the running mean/variance outputs exist only in training mode");
  }
  requireOutputsAtMost(node, 3, "Y, running_mean and running_var");
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
  for (size_t i = 1; i < node.outputs.size(); ++i) setOutput(node, i, inputType(node, 3));
}

// Training mode normalises with the batch's statistics: the runtime executes it.
bool batchNormTraining(const Node& node) { return node.attrs.getInt("training_mode", 0) != 0; }

void inferSoftmax(Node& node) {
  const TensorType& x = inputType(node, 0);
  requireFloat(node, 0);
  requireRankAtLeast(node, 0, 1, "softmax needs an axis");
  if (node.attrs.has("axis")) normalizeAxis(node, node.attrs.getInt("axis"), x.rank());
  setOutput(node, 0, x);
}

// Scale and B: one value per channel.
void requirePerChannel(const Node& node, size_t i, const char* what, const TensorType& x) {
  const TensorType& p = inputType(node, i, what);
  requireSameDtype(node, 0, i);
  if (p.shape != Shape{x.shape[1]}) {
    fail(node, what, " (input ", i, ") is ", p.str(), "; expected [", x.shape[1],
         "] (one value per channel of input ", x.str(), ")");
  }
}

void inferInstanceNorm(Node& node) {
  const TensorType& x = inputType(node, 0, "input");
  requireFloat(node, 0);
  requireRankAtLeast(node, 0, 3, "N, C and spatial dims");
  node.attrs.getFloat("epsilon", 1e-5);
  requirePerChannel(node, 1, "scale", x);
  requirePerChannel(node, 2, "B", x);
  setOutput(node, 0, x);
}

// Y normalises X over the dims from `axis` on; the optional Mean and InvStdDev outputs keep X's
// leading dims and have 1 for each normalised one, in the stash type (float32).
void inferLayerNorm(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  requireFloat(node, 0);
  requireRankAtLeast(node, 0, 1, "an axis to normalise over");
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis", -1), x.rank()));
  node.attrs.getFloat("epsilon", 1e-5);
  int64_t stash = node.attrs.getInt("stash_type", 1);
  if (stash != 1) fail(node, "stash_type is ", stash, "; expected 1 (float32)");
  Shape normalized(x.shape.begin() + static_cast<std::ptrdiff_t>(axis), x.shape.end());
  static const char* const kNames[] = {"X", "Scale", "B"};
  for (size_t i = 1; i < 3; ++i) {
    if (!hasInput(node, i)) continue;
    const TensorType& p = inputType(node, i, kNames[i]);
    requireSameDtype(node, 0, i);
    if (!broadcastsTo(p.shape, normalized)) {
      fail(node, kNames[i], " (input ", i, ") is ", p.str(), "; expected a shape broadcasting to ",
           listStr(normalized), " (the dims of X ", x.str(), " from axis ", axis, " on)");
    }
  }
  setOutput(node, 0, x);
  opdef::DimList stats = x.dims();
  for (size_t d = axis; d < stats.size(); ++d) stats[d] = 1;
  setOutput(node, 1, TensorType::of(DataType::float32(), stats));
  setOutput(node, 2, TensorType::of(DataType::float32(), stats));
}

void inferLrn(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  requireFloat(node, 0);
  requireRankAtLeast(node, 0, 2, "N and C dims");
  if (!node.attrs.has("size")) fail(node, "the 'size' attribute is required");
  int64_t size = node.attrs.getInt("size");
  if (size < 1) fail(node, "size is ", size, "; expected a positive number of channels");
  for (const char* attr : {"alpha", "beta", "bias"}) node.attrs.getFloat(attr, 0.0);
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
       .runtimeForm = batchNormTraining,
       .inferTypes = inferBatchNorm,
       .sampleInputs = {0}});
  add({.name = "Softmax",
       .opClass = OpClass::kReduction,
       .sinceVersion = 1,
       .inferTypes = inferSoftmax,
       .symbolicSizes = true,
       .symbolicKernel = true});
  add({.name = "LogSoftmax",
       .opClass = OpClass::kReduction,
       .sinceVersion = 1,
       .inferTypes = inferSoftmax,
       .symbolicSizes = true,
       .symbolicKernel = true});
  add({.name = "Hardmax",
       .opClass = OpClass::kReduction,
       .sinceVersion = 1,
       .inferTypes = inferSoftmax,
       .symbolicSizes = true});
  add({.name = "InstanceNormalization",
       .opClass = OpClass::kReduction,
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 6,
       .inferTypes = inferInstanceNorm,
       .sampleInputs = {0}});
  add({.name = "LayerNormalization",
       .opClass = OpClass::kReduction,
       .minInputs = 2,
       .maxInputs = 3,
       .numOutputs = 3,
       .sinceVersion = 17,
       .computedOutputs = 1,  // Mean and InvStdDev come from the ONNX function
       .inferTypes = inferLayerNorm,
       .symbolicSizes = true,
       .symbolicKernel = true});
  // LRN reads neighbouring channels, so it cannot run in an epilogue that sees one element.
  add({.name = "LRN",
       .opClass = OpClass::kOpaque,
       .sinceVersion = 1,
       .inferTypes = inferLrn,
       .sampleInputs = {0}});
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
