// Type inference of the ops only the runtime executes (kiln/runtime/runtime_op.h): ops whose
// output size depends on the data (NonZero, Compress, Unique), TopK, and CumSum, whose axis is an
// input value; Resize and Upsample.
#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "kiln/opdef/reduce.h"
#include "kiln/opdef/resize.h"
#include "kiln/opdef/sequence_axes.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

void inferNonZero(Node& node) {
  const TensorType& x = inputType(node, 0);
  setOutput(node, 0, {DataType::int64(), {x.rank(), runtime::kDynamicDim}});
}

// Compress and Unique: the selected slices along `axis`, or elements of the flattened input, as
// src/opdef's rule gives them (the count known at run time).
TensorType selectedAlongAxis(const Node& node, const TensorType& x) {
  return {x.dtype, opdef::selectedShape(NodeView(node))};
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
    setOutput(node, i, {DataType::int64(), {runtime::kDynamicDim}});
  }
}

// Values and indices: src/opdef's rule, which the runtime's TopK follows too.
void inferTopK(Node& node) {
  opdef::Dims out = opdef::topKShape(NodeView(node));
  setOutput(node, 0, {inputType(node, 0).dtype, out});
  if (node.outputs.size() > 1) setOutput(node, 1, {DataType::int64(), out});
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

// Resize and Upsample: the output sizes of src/opdef's geometry, unknown where the scales, sizes
// or input dims are known only at run time.
void inferResize(Node& node) {
  const TensorType& x = inputType(node, 0);
  setOutput(node, 0, {x.dtype, opdef::resizeGeometry(NodeView(node)).out});
}

void inferNonMaxSuppression(Node& node) {
  const TensorType& boxes = inputType(node, 0, "boxes");
  const TensorType& scores = inputType(node, 1, "scores");
  if (boxes.dtype != DataType::float32() || scores.dtype != DataType::float32()) {
    fail(node, "boxes and scores are ", boxes.str(), " and ", scores.str(), "; expected float32");
  }
  if (boxes.rank() != 3 || scores.rank() != 3) {
    fail(node, "boxes ", boxes.str(), " and scores ", scores.str(),
         "; expected [batches, boxes, 4] and [batches, classes, boxes]");
  }
  setOutput(node, 0, {DataType::int64(), {runtime::kDynamicDim, 3}});
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
  add({.name = "Resize",
       .maxInputs = 4,
       .sinceVersion = 10,
       .shapeInputs = {1, 2, 3},
       .inferRunTime = inferResize,
       .inferTypes = inferResize});
  add({.name = "Upsample",
       .maxInputs = 2,
       .sinceVersion = 7,
       .shapeInputs = {1},
       .inferRunTime = inferResize,
       .inferTypes = inferResize});
  add({.name = "NonMaxSuppression",
       .minInputs = 2,
       .maxInputs = 5,
       .sinceVersion = 10,
       .inferRunTime = inferNonMaxSuppression,
       .inferTypes = inferNonMaxSuppression});
  add({.name = "TopK",
       .maxInputs = 2,
       .numOutputs = 2,
       .sinceVersion = 1,
       .shapeInputs = {1},
       .inferRunTime = inferTopK,
       .inferTypes = inferTopK});
}

}  // namespace kiln::ir::ops
