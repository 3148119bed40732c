// Type inference of ConvTranspose: the output size from strides, pads, dilations and
// output_padding, or given by output_shape or auto_pad (SAME_*: input size times stride).
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

void inferConvTranspose(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  const TensorType& w = inputType(node, 1, "W");
  requireFloat(node, 0);
  requireSameDtype(node, 0, 1);
  if (x.rank() < 3) fail(node, "input X is ", x.str(), "; expected rank >= 3 (N, C, spatial...)");
  if (w.rank() != x.rank()) {
    fail(node, "weight W is ", w.str(), "; expected rank ", x.rank(), " like input X ", x.str());
  }
  auto nd = static_cast<size_t>(x.rank() - 2);
  int64_t group = node.attrs.getInt("group", 1);
  if (group < 1 || x.shape[1] != w.shape[0] || w.shape[0] % group != 0) {
    fail(node, "input channels ", x.shape[1], " must equal weight dim 0 (", w.shape[0],
         "), divisible by group ", group);
  }
  int64_t filters = w.shape[1] * group;
  if (hasInput(node, 2) && inputType(node, 2, "B").shape != Shape{filters}) {
    fail(node, "bias B is ", inputType(node, 2).str(), "; expected [", filters, "]");
  }
  Shape kernel(w.shape.begin() + 2, w.shape.end());
  if (node.attrs.has("kernel_shape") && node.attrs.getInts("kernel_shape", {}) != kernel) {
    fail(node, "kernel_shape ", listStr(node.attrs.getInts("kernel_shape", {})),
         " does not match the weight's spatial dims ", listStr(kernel));
  }
  auto ones = std::vector<int64_t>(nd, 1);
  std::vector<int64_t> strides = node.attrs.getInts("strides", ones);
  std::vector<int64_t> dilations = node.attrs.getInts("dilations", ones);
  std::vector<int64_t> pads = node.attrs.getInts("pads", std::vector<int64_t>(2 * nd, 0));
  std::vector<int64_t> outPad = node.attrs.getInts("output_padding", std::vector<int64_t>(nd, 0));
  std::vector<int64_t> outShape = node.attrs.getInts("output_shape", {});
  std::string autoPad = node.attrs.getString("auto_pad", "NOTSET");
  if (strides.size() != nd || dilations.size() != nd || pads.size() != 2 * nd ||
      outPad.size() != nd) {
    fail(node, "strides, dilations, pads or output_padding do not match ", nd, " spatial dims");
  }
  if (!outShape.empty() && outShape.size() != nd && outShape.size() != nd + 2) {
    fail(node, "output_shape ", listStr(outShape), " has ", outShape.size(), " entries; expected ",
         nd);
  }
  Shape out = {x.shape[0], filters};
  for (size_t d = 0; d < nd; ++d) {
    int64_t in = x.shape[d + 2];
    if (strides[d] < 1 || dilations[d] < 1) fail(node, "strides and dilations must be >= 1");
    int64_t size = 0;
    if (!outShape.empty()) {
      size = outShape[outShape.size() - nd + d];
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      size = in * strides[d];
    } else {
      int64_t padTotal = autoPad == "VALID" ? 0 : pads[d] + pads[d + nd];
      size = strides[d] * (in - 1) + outPad[d] + (kernel[d] - 1) * dilations[d] + 1 - padTotal;
    }
    if (size < 1) fail(node, "output dim ", d + 2, " would be ", size, "; expected >= 1");
    out.push_back(size);
  }
  setOutput(node, 0, {x.dtype, out});
}

}  // namespace

void registerConvTransposeOps(const OpAdder& add) {
  add({.name = "ConvTranspose",
       .opClass = OpClass::kComplex,
       .minInputs = 2,
       .maxInputs = 3,
       .sinceVersion = 1,
       .inferTypes = inferConvTranspose,
       .sampleInputs = {0}});
}

}  // namespace kiln::ir::ops
