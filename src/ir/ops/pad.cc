// Type inference of Pad in its two forms: pads and value as attributes (opsets 2-10) or as inputs
// (pads, constant_value, and from opset 18 axes), with negative pads cropping.
#include "kiln/opdef/pad.h"

#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void checkConstantValue(const Node& node) {
  node.attrs.getFloat("value", 0.0);
  if (!hasInput(node, 2)) return;
  const TensorType& v = inputType(node, 2, "constant_value");
  requireSameDtype(node, 0, 2);
  if (v.numel() > 1) fail(node, "constant_value is ", v.str(), "; expected a scalar");
}

// The output dims are src/opdef's rule, which the runtime's Pad follows too.
void inferPad(Node& node) {
  const TensorType& x = inputType(node, 0, "data");
  checkConstantValue(node);
  NodeView view(node);
  setOutput(node, 0, {x.dtype, opdef::padShape(view, opdef::padSpec(view))});
}

}  // namespace

void registerPadOps(const OpAdder& add) {
  add({.name = "Pad",
       .opClass = OpClass::kInjective,
       .minInputs = 1,
       .maxInputs = 4,
       .sinceVersion = 2,
       .shapeInputs = {1, 3},
       .inferRunTime = inferPad,
       .inferTypes = inferPad});
}

}  // namespace kiln::ir::ops
