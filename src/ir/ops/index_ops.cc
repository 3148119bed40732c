// Type inference of indexed reads and writes and small matrix ops the runtime executes:
// ScatterElements, Scatter, ScatterND, GatherND, OneHot, EyeLike, Shrink, ReverseSequence, Det.
#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "kiln/ir/onnx_dtype.h"
#include "kiln/opdef/index.h"
#include "kiln/opdef/matrix.h"
#include "kiln/opdef/scatter.h"
#include "kiln/opdef/sequence_axes.h"
#include "kiln/opdef/spatial.h"
#include "kiln/opdef/tfidf.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

void sameAsData(Node& node) { setOutput(node, 0, inputType(node, 0)); }

// Scatter's, Det's, EyeLike's, ReverseSequence's and TfIdfVectorizer's rules are src/opdef's,
// which the runtime's ops follow too.
void inferScatter(Node& node) {
  requireIndexType(node, 1);
  requireSameDtype(node, 0, 2);
  if (node.op == "ScatterND") {
    opdef::scatterNdDepth(NodeView(node));
  } else {
    opdef::scatterElementsAxis(NodeView(node));
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
  DataType dtype = node.attrs.has("dtype") ? numericTypeFromOnnx(node.attrs.getInt("dtype"))
                                           : inputType(node, 0).dtype;
  setOutput(node, 0, {dtype, opdef::eyeLikeShape(NodeView(node))});
}

void inferReverseSequence(Node& node) {
  if (inputType(node, 1, "sequence_lens").dtype != DataType::int64()) {
    fail(node, "sequence_lens is ", inputType(node, 1).str(), "; expected int64");
  }
  opdef::reverseSequenceAxes(NodeView(node));
  sameAsData(node);
}

void inferDet(Node& node) {
  requireFloat(node, 0);
  setOutput(node, 0, {inputType(node, 0).dtype, opdef::detShape(NodeView(node))});
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
  requireIndexType(node, 0);
  setOutput(node, 0, {DataType::float32(), opdef::tfIdfSpec(NodeView(node)).out});
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
