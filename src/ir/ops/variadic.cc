// Type inference of the variadic elementwise ops Min, Max, Sum and Mean: any number of inputs of
// one dtype, broadcast together (opset 8 on; opset 6 required equal shapes, a special case).
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

using Check = void (*)(const Node&, size_t);

void inferVariadic(Node& node, Check check) {
  opdef::DimList out = inputType(node, 0).dims();
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    requireSameDtype(node, 0, i);
    check(node, i);
    out = broadcastShapes(node, out, inputType(node, i).dims());
  }
  setOutput(node, 0, TensorType::of(inputType(node, 0).dtype, out));
}

OpDef variadicOp(const char* name, Check check) {
  return {.name = name,
          .opClass = OpClass::kBroadcast,
          .minInputs = 1,
          .maxInputs = kVariadicInputs,
          .sinceVersion = 6,
          .inferTypes = [check](Node& node) { inferVariadic(node, check); },
          .symbolicSizes = true,
          .symbolicKernel = true};
}

}  // namespace

void registerVariadicOps(const OpAdder& add) {
  add(variadicOp("Min", requireNumeric));
  add(variadicOp("Max", requireNumeric));
  add(variadicOp("Sum", requireNumeric));  // ONNX lists floats only; integer sums are exact
  add(variadicOp("Mean", requireFloat));
}

}  // namespace kiln::ir::ops
