// Type inference of Einsum (executed by the runtime): the output's dims are the sizes of the
// labels src/opdef's parse of the equation keeps.
#include "kiln/opdef/einsum.h"

#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

void inferEinsum(Node& node) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    inputType(node, i);
    requireSameDtype(node, 0, i);
  }
  setOutput(node, 0, {inputType(node, 0).dtype, opdef::parseEinsum(NodeView(node)).outputShape()});
}

}  // namespace

void registerEinsumOps(const OpAdder& add) {
  add({.name = "Einsum",
       .minInputs = 1,
       .maxInputs = kVariadicInputs,
       .sinceVersion = 12,
       .inferRunTime = inferEinsum,
       .inferTypes = inferEinsum});
}

}  // namespace kiln::ir::ops
