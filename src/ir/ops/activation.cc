// Type inference of the activations with attributes beyond LeakyRelu (Elu, Selu, Celu,
// HardSigmoid, HardSwish, ThresholdedRelu, Softplus, Softsign, Mish, Gelu) and of PRelu, whose
// slope broadcasts to the input.
#include <string>

#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

// A float-only activation whose float attributes ATTRS are read (so a wrongly typed attribute
// fails at inference, naming the node, rather than at lowering).
OpDef floatActivation(const char* name, int since,
                      const std::vector<const char*>& floatAttrs = {}) {
  return {.name = name,
          .opClass = OpClass::kElementwise,
          .sinceVersion = since,
          .inferTypes = [floatAttrs](Node& node) {
            requireFloat(node, 0);
            for (const char* attr : floatAttrs) node.attrs.getFloat(attr, 0.0);
            setOutput(node, 0, inputType(node, 0));
          }};
}

void inferGelu(Node& node) {
  requireFloat(node, 0);
  std::string approx = node.attrs.getString("approximate", "none");
  if (approx != "none" && approx != "tanh") {
    fail(node, "approximate is '", approx, "'; expected 'none' or 'tanh'");
  }
  setOutput(node, 0, inputType(node, 0));
}

// The slope broadcasts unidirectionally to X (numpy rules, X's shape wins), as from opset 7; the
// opset 6 forms (one shared value, or X's own shape) are special cases of it.
void inferPRelu(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  const TensorType& slope = inputType(node, 1, "slope");
  requireFloat(node, 0);
  requireSameDtype(node, 0, 1);
  if (!broadcastsTo(slope.shape, x.shape)) {
    fail(node, "slope ", slope.str(), " does not broadcast to X ", x.str(),
         "; expected a shape that numpy-broadcasts to X's shape without changing it");
  }
  setOutput(node, 0, x);
}

}  // namespace

void registerActivationOps(const OpAdder& add) {
  add(floatActivation("Elu", 6, {"alpha"}));
  add(floatActivation("Selu", 6, {"alpha", "gamma"}));
  add(floatActivation("Celu", 12, {"alpha"}));
  add(floatActivation("HardSigmoid", 6, {"alpha", "beta"}));
  add(floatActivation("HardSwish", 14));
  add(floatActivation("ThresholdedRelu", 10, {"alpha"}));
  add(floatActivation("Softplus", 1));
  add(floatActivation("Softsign", 1));
  add(floatActivation("Mish", 18));
  add({.name = "Gelu",
       .opClass = OpClass::kElementwise,
       .sinceVersion = 20,
       .inferTypes = inferGelu});
  add({.name = "PRelu",
       .opClass = OpClass::kBroadcast,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 6,
       .inferTypes = inferPRelu});
}

}  // namespace kiln::ir::ops
