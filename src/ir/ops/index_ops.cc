// Type inference of indexed reads and writes and small matrix ops the runtime executes:
// ScatterElements, Scatter, ScatterND, GatherND, OneHot, EyeLike, Shrink, ReverseSequence, Det.
#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "kiln/ir/onnx_dtype.h"
#include "kiln/opdef/index.h"
#include "kiln/opdef/spatial.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

void sameAsData(Node& node) { setOutput(node, 0, inputType(node, 0)); }

void inferScatter(Node& node) {
  requireIndexType(node, 1);
  requireSameDtype(node, 0, 2);
  if (node.op == "ScatterElements" || node.op == "Scatter") {
    const TensorType& data = inputType(node, 0);
    if (inputType(node, 1).rank() != data.rank() ||
        inputType(node, 2).shape != inputType(node, 1).shape) {
      fail(node, "indices ", inputType(node, 1).str(), " and updates ", inputType(node, 2).str(),
           " must have one shape, of the rank of data ", data.str());
    }
    normalizeAxis(node, node.attrs.getInt("axis", 0), data.rank());
  }
  sameAsData(node);
}

// GatherND's and OneHot's dims are src/opdef's rules, which the runtime's ops follow too.
void inferGatherND(Node& node) {
  requireIndexType(node, 1);
  setOutput(node, 0, {inputType(node, 0).dtype, opdef::gatherNdShape(NodeView(node))});
}

void inferOneHot(Node& node) {
  setOutput(node, 0, {inputType(node, 2, "values").dtype, opdef::oneHotShape(NodeView(node))});
}

void inferEyeLike(Node& node) {
  const TensorType& x = inputType(node, 0);
  if (x.rank() != 2) fail(node, "input is ", x.str(), "; expected 2-D");
  DataType dtype =
      node.attrs.has("dtype") ? numericTypeFromOnnx(node.attrs.getInt("dtype")) : x.dtype;
  setOutput(node, 0, {dtype, x.shape});
}

void inferReverseSequence(Node& node) {
  requireRankAtLeast(node, 0, 2, "ReverseSequence needs time and batch axes");
  if (inputType(node, 1, "sequence_lens").dtype != DataType::int64()) {
    fail(node, "sequence_lens is ", inputType(node, 1).str(), "; expected int64");
  }
  sameAsData(node);
}

void inferDet(Node& node) {
  const TensorType& x = inputType(node, 0);
  requireFloat(node, 0);
  if (x.rank() < 2 || x.shape[x.shape.size() - 1] != x.shape[x.shape.size() - 2]) {
    fail(node, "input is ", x.str(), "; expected [..., M, M]");
  }
  setOutput(node, 0, {x.dtype, Shape(x.shape.begin(), x.shape.end() - 2)});
}

// GridSample's, RoiAlign's and MaxUnpool's dims are src/opdef's rules, as at run time.
void inferGridSample(Node& node) {
  requireFloat(node, 0);
  setOutput(node, 0, {inputType(node, 0).dtype, opdef::gridSampleSpec(NodeView(node)).out});
}

void inferMaxUnpool(Node& node) {
  requireIndexType(node, 1);
  setOutput(node, 0, {inputType(node, 0).dtype, opdef::maxUnpoolShape(NodeView(node)).out});
}

void inferRoiAlign(Node& node) {
  requireFloat(node, 0);
  setOutput(node, 0, {inputType(node, 0).dtype, opdef::roiAlignShape(NodeView(node))});
}

void inferTfIdf(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  requireIndexType(node, 0);
  if (x.rank() != 1 && x.rank() != 2) fail(node, "X is ", x.str(), "; expected 1-D or 2-D");
  int64_t outputs = 0;
  for (int64_t i : node.attrs.getInts("ngram_indexes", {})) outputs = std::max(outputs, i + 1);
  if (node.attrs.has("pool_strings")) fail(node, "pool_strings needs string tokens; kiln has none");
  Shape out = x.rank() == 2 ? Shape{x.shape[0], outputs} : Shape{outputs};
  setOutput(node, 0, {DataType::float32(), out});
}

}  // namespace

void registerIndexOps(const OpAdder& add) {
  add({.name = "ScatterElements",
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 11,
       .inferRunTime = inferScatter,
       .inferTypes = inferScatter});
  add({.name = "Scatter",
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 9,
       .inferRunTime = inferScatter,
       .inferTypes = inferScatter});
  add({.name = "ScatterND",
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 11,
       .inferRunTime = inferScatter,
       .inferTypes = inferScatter});
  add({.name = "GatherND",
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 11,
       .inferRunTime = inferGatherND,
       .inferTypes = inferGatherND});
  add({.name = "OneHot",
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 9,
       .shapeInputs = {1},
       .inferRunTime = inferOneHot,
       .inferTypes = inferOneHot});
  add({.name = "EyeLike", .sinceVersion = 9, .inferTypes = inferEyeLike});
  add({.name = "Shrink", .sinceVersion = 9, .inferRunTime = sameAsData, .inferTypes = sameAsData});
  add({.name = "ReverseSequence",
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 10,
       .inferTypes = inferReverseSequence});
  add({.name = "Det", .sinceVersion = 11, .inferTypes = inferDet});
  add({.name = "MaxUnpool",
       .minInputs = 2,
       .maxInputs = 3,
       .sinceVersion = 9,
       .shapeInputs = {2},
       .inferRunTime = inferMaxUnpool,
       .inferTypes = inferMaxUnpool});
  add({.name = "RoiAlign",
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 10,
       .inferRunTime = inferRoiAlign,
       .inferTypes = inferRoiAlign});
  add({.name = "TfIdfVectorizer", .sinceVersion = 9, .inferTypes = inferTfIdf});
  add({.name = "GridSample",
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 16,
       .inferRunTime = inferGridSample,
       .inferTypes = inferGridSample});
}

}  // namespace kiln::ir::ops
