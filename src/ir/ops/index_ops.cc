// Type inference of indexed reads and writes and small matrix ops the runtime executes:
// ScatterElements, Scatter, ScatterND, GatherND, OneHot, EyeLike, Shrink, ReverseSequence, Det.
#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "kiln/ir/onnx_dtype.h"
#include "kiln/opdef/index.h"
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

void inferGridSample(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  const TensorType& grid = inputType(node, 1, "grid");
  requireFloat(node, 0);
  if (x.rank() != 4 || grid.rank() != 4 || grid.shape[0] != x.shape[0] || grid.shape[3] != 2) {
    fail(node, "X ", x.str(), " and grid ", grid.str(),
         "; expected [N, C, H, W] and [N, H_out, W_out, 2]");
  }
  setOutput(node, 0, {x.dtype, {x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]}});
}

void inferMaxUnpool(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  requireIndexType(node, 1);
  auto nd = static_cast<size_t>(x.rank() - 2);
  if (x.rank() < 3) fail(node, "X is ", x.str(), "; expected N, C and spatial dims");
  Shape out;
  if (hasInput(node, 2)) {
    out = requireConstantInts(node, 2, "output_shape");
  } else {
    std::vector<int64_t> kernel = node.attrs.getInts("kernel_shape", {});
    std::vector<int64_t> strides = node.attrs.getInts("strides", std::vector<int64_t>(nd, 1));
    std::vector<int64_t> pads = node.attrs.getInts("pads", std::vector<int64_t>(2 * nd, 0));
    if (kernel.size() != nd || strides.size() != nd || pads.size() != 2 * nd) {
      fail(node, "kernel_shape, strides or pads do not match ", nd, " spatial dims");
    }
    out = {x.shape[0], x.shape[1]};
    for (size_t d = 0; d < nd; ++d) {
      out.push_back((x.shape[d + 2] - 1) * strides[d] + kernel[d] - pads[d] - pads[d + nd]);
    }
  }
  setOutput(node, 0, {x.dtype, out});
}

void inferRoiAlign(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  const TensorType& rois = inputType(node, 1, "rois");
  requireFloat(node, 0);
  if (x.rank() != 4 || rois.rank() != 2) {
    fail(node, "X ", x.str(), " and rois ", rois.str(), "; expected [N,C,H,W] and [R,4]");
  }
  setOutput(node, 0,
            {x.dtype,
             {rois.shape[0], x.shape[1], node.attrs.getInt("output_height", 1),
              node.attrs.getInt("output_width", 1)}});
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
       .inferRunTime =
           [](Node& n) {
             setOutput(n, 0,
                       {inputType(n, 0).dtype,
                        Shape(inputType(n, 0).shape.size(), runtime::kDynamicDim)});
           },
       .inferTypes = inferMaxUnpool});
  add({.name = "RoiAlign",
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 10,
       .inferTypes = inferRoiAlign});
  add({.name = "TfIdfVectorizer", .sinceVersion = 9, .inferTypes = inferTfIdf});
  add({.name = "GridSample",
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 16,
       .inferTypes = inferGridSample});
}

}  // namespace kiln::ir::ops
