// Type inference of Pad in its two forms: pads and value as attributes (opsets 2-10) or as inputs
// (pads, constant_value, and from opset 18 axes), with negative pads cropping.
#include <string>

#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

std::vector<int64_t> padsOf(const Node& node) {
  if (node.attrs.has("pads")) {
    if (hasInput(node, 1)) {
      fail(node,
           "pads are given both as an attribute (opset < 11 form) and as input 1; expected "
           "one form");
    }
    return node.attrs.getInts("pads", {});
  }
  if (!hasInput(node, 1)) {
    fail(node, "pads are required (input 1 from opset 11, the 'pads' attribute before)");
  }
  return requireConstantInts(node, 1, "pads");
}

void checkConstantValue(const Node& node) {
  node.attrs.getFloat("value", 0.0);
  if (!hasInput(node, 2)) return;
  const TensorType& v = inputType(node, 2, "constant_value");
  requireSameDtype(node, 0, 2);
  if (v.numel() > 1) fail(node, "constant_value is ", v.str(), "; expected a scalar");
}

void inferPad(Node& node) {
  const TensorType& x = inputType(node, 0, "data");
  std::string mode = node.attrs.getString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") {
    fail(node, "mode is '", mode, "'; expected 'constant', 'reflect', 'edge' or 'wrap'");
  }
  checkConstantValue(node);
  std::vector<int64_t> pads = padsOf(node);
  std::vector<int64_t> axes;
  if (hasInput(node, 3)) {
    axes = normalizeAxes(node, requireConstantInts(node, 3, "axes"), x.rank());
  } else {
    for (int64_t d = 0; d < x.rank(); ++d) axes.push_back(d);
  }
  if (pads.size() != 2 * axes.size()) {
    fail(node, "pads ", listStr(pads), " has ", pads.size(), " entries; expected ", 2 * axes.size(),
         " (a begin and an end for each of the ", axes.size(), " padded axes)");
  }
  Shape out = x.shape;
  for (size_t k = 0; k < axes.size(); ++k) {
    auto d = static_cast<size_t>(axes[k]);
    int64_t begin = pads[k], end = pads[k + axes.size()];
    if (mode != "constant" && x.shape[d] == 0 && (begin > 0 || end > 0)) {
      fail(node, "cannot pad the empty dim ", d, " of ", x.str(), " in mode '", mode,
           "'; expected a non-empty dim");
    }
    int64_t size = 0;
    if (__builtin_add_overflow(x.shape[d], begin, &size) ||
        __builtin_add_overflow(size, end, &size) || size < 0) {
      fail(node, "pads ", listStr(pads), " give dim ", d, " of ", x.str(),
           " an invalid size; expected a size from 0 to the int64 limit");
    }
    out[d] = size;
  }
  setOutput(node, 0, {x.dtype, out});
}

}  // namespace

void registerPadOps(const OpAdder& add) {
  add({.name = "Pad",
       .opClass = OpClass::kInjective,
       .minInputs = 1,
       .maxInputs = 4,
       .sinceVersion = 2,
       .inferTypes = inferPad});
}

}  // namespace kiln::ir::ops
