// Type inference of Slice: the ranges of src/opdef, unknown where the arguments or the sliced dims
// are known only at run time (the runtime executes such a Slice).
#include "kiln/opdef/slice.h"

#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferSlice(Node& node) {
  const TensorType& x = inputType(node, 0);
  setOutput(node, 0, TensorType::of(x.dtype, opdef::sliceDims(NodeView(node))));
}

}  // namespace

void registerSliceOps(const OpAdder& add) {
  add({.name = "Slice",
       .opClass = OpClass::kInjective,
       .minInputs = 1,
       .maxInputs = 5,
       .sinceVersion = 1,
       .shapeInputs = {1, 2, 3, 4},
       .inferRunTime = inferSlice,
       .inferTypes = inferSlice,
       .symbolicSizes = true,
       .symbolicKernel = true});
}

}  // namespace kiln::ir::ops
