// Type inference of the ops only the runtime executes (kiln/runtime/runtime_op.h): ops whose
// output size depends on the data (NonZero, Compress, Unique), TopK, and CumSum, whose axis is an
// input value.
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

constexpr int64_t kUnknown = runtime::kDynamicDim;

void inferNonZero(Node& node) {
  const TensorType& x = inputType(node, 0);
  setOutput(node, 0, {DataType::int64(), {x.rank(), kUnknown}});
}

// Compress and Unique: the selected slices along `axis`, or elements of the flattened input.
TensorType selectedAlongAxis(const Node& node, const TensorType& x) {
  if (!node.attrs.has("axis")) return {x.dtype, {kUnknown}};
  int64_t axis = normalizeAxis(node, node.attrs.getInt("axis"), x.rank());
  TensorType out = x;
  out.shape[static_cast<size_t>(axis)] = kUnknown;
  return out;
}

void inferCompress(Node& node) {
  const TensorType& x = inputType(node, 0);
  const TensorType& c = inputType(node, 1, "condition");
  if (c.dtype != DataType::boolean() || c.rank() != 1) {
    fail(node, "condition is ", c.str(), "; expected a 1-D bool tensor");
  }
  setOutput(node, 0, selectedAlongAxis(node, x));
}

void inferUnique(Node& node) {
  const TensorType& x = inputType(node, 0);
  setOutput(node, 0, selectedAlongAxis(node, x));
  for (size_t i = 1; i < node.outputs.size(); ++i) {
    setOutput(node, i, {DataType::int64(), {kUnknown}});
  }
}

void inferTopK(Node& node) {
  const TensorType& x = inputType(node, 0);
  requireRankAtLeast(node, 0, 1, "TopK selects along an axis");
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis", -1), x.rank()));
  int64_t k = 0;
  if (node.attrs.has("k")) {
    k = node.attrs.getInt("k");
  } else {
    std::vector<int64_t> ks = requireConstantInts(node, 1, "K");
    if (ks.size() != 1) fail(node, "K has ", ks.size(), " elements; expected one");
    k = ks[0];
  }
  if (k < 0 || (x.shape[axis] != kUnknown && k > x.shape[axis])) {
    fail(node, "K is ", k, "; expected 0 to ", x.shape[axis], " (dim ", axis, " of ", x.str(), ")");
  }
  TensorType out = x;
  out.shape[axis] = k;
  setOutput(node, 0, out);
  if (node.outputs.size() > 1) setOutput(node, 1, {DataType::int64(), out.shape});
}

void inferCumSum(Node& node) {
  const TensorType& x = inputType(node, 0);
  requireNumeric(node, 0);
  const TensorType& axis = inputType(node, 1, "axis");
  requireIndexType(node, 1);
  if (axis.rank() > 1 || (axis.isStatic() && axis.numel() != 1)) {
    fail(node, "axis is ", axis.str(), "; expected a scalar");
  }
  setOutput(node, 0, x);
}

}  // namespace

void registerRuntimeExecutedOps(const OpAdder& add) {
  add({.name = "NonZero",
       .sinceVersion = 9,
       .inferRunTime = inferNonZero,
       .inferTypes = inferNonZero});
  add({.name = "Compress",
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 9,
       .inferRunTime = inferCompress,
       .inferTypes = inferCompress});
  add({.name = "Unique",
       .numOutputs = 4,
       .sinceVersion = 11,
       .inferRunTime = inferUnique,
       .inferTypes = inferUnique});
  add({.name = "CumSum",
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 11,
       .inferRunTime = inferCumSum,
       .inferTypes = inferCumSum});
  add({.name = "TopK",
       .maxInputs = 2,
       .numOutputs = 2,
       .sinceVersion = 1,
       .inferTypes = inferTopK});
}

}  // namespace kiln::ir::ops
