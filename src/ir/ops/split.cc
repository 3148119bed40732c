// Type inference of Split: sizes as an attribute (before opset 13) or a constant input (opset 1
// and 13 on), the num_outputs attribute (opset 18), or equal parts, one per output.
#include "kiln/opdef/split.h"

#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

// The parts are src/opdef's rule, which the runtime's Split follows too.
void inferSplit(Node& node) {
  DataType dtype = inputType(node, 0, "input").dtype;
  std::vector<opdef::DimList> outs = opdef::splitShapes(NodeView(node));
  for (size_t i = 0; i < outs.size(); ++i) setOutput(node, i, TensorType::of(dtype, outs[i]));
}

}  // namespace

void registerSplitOps(const OpAdder& add) {
  add({.name = "Split",
       .opClass = OpClass::kInjective,
       .minInputs = 1,
       .maxInputs = 2,
       .numOutputs = kVariadicInputs,  // one output per part
       .sinceVersion = 1,
       .shapeInputs = {1},
       .inferRunTime = inferSplit,
       .inferTypes = inferSplit,
       .symbolicSizes = true,
       .symbolicKernel = true});
}

}  // namespace kiln::ir::ops
