// Type inference of Conv: N-d convolution with groups (incl. depthwise), dilations and auto_pad.
#include "infer_util.h"
#include "kiln/ir/window.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferConv(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  const TensorType& w = inputType(node, 1, "W");
  requireFloat(node, 0);
  requireSameDtype(node, 0, 1);
  if (x.rank() < 3) fail(node, "input X is ", x.str(), "; expected rank >= 3 (N, C, spatial...)");
  if (w.rank() != x.rank()) {
    fail(node, "weight W is ", w.str(), "; expected rank ", x.rank(), " like input X ", x.str());
  }
  int64_t group = node.attrs.getInt("group", 1);
  if (group < 1) fail(node, "group ", group, "; expected >= 1");
  int64_t channels = x.shape[1];
  int64_t filters = w.shape[0];
  int64_t groupedChannels = 0;
  if (__builtin_mul_overflow(w.shape[1], group, &groupedChannels) || channels != groupedChannels) {
    fail(node, "input channels ", channels, " do not match weight channels ", w.shape[1],
         " * group ", group);
  }
  if (filters % group != 0) {
    fail(node, "output channels ", filters, " (weight dim 0) are not divisible by group ", group);
  }
  Shape kernel(w.shape.begin() + 2, w.shape.end());
  if (node.attrs.has("kernel_shape")) {
    std::vector<int64_t> ks = node.attrs.getInts("kernel_shape", {});
    if (ks != kernel) {
      fail(node, "kernel_shape ", listStr(ks), " does not match the weight's spatial dims ",
           listStr(kernel));
    }
  }
  if (hasInput(node, 2)) {
    const TensorType& b = inputType(node, 2, "B");
    requireSameDtype(node, 0, 2);
    if (b.shape != Shape{filters}) {
      fail(node, "bias B is ", b.str(), "; expected [", filters, "] (one per output channel)");
    }
  }
  WindowGeometry g = resolveWindow(node, Shape(x.shape.begin() + 2, x.shape.end()), kernel);
  Shape out = {x.shape[0], filters};
  out.insert(out.end(), g.output.begin(), g.output.end());
  setOutput(node, 0, {x.dtype, out});
}

// The compiled convolutions cover 1-D and 2-D; more spatial dims run in the runtime.
bool convRuntimeForm(const Node& node) { return node.inputs[0]->type.rank() > 4; }

}  // namespace

void registerConvOps(const OpAdder& add) {
  add({.name = "Conv",
       .opClass = OpClass::kComplex,
       .minInputs = 2,
       .maxInputs = 3,
       .sinceVersion = 1,
       .runtimeForm = convRuntimeForm,
       .inferTypes = inferConv,
       .sampleInputs = {0}});
}

}  // namespace kiln::ir::ops
