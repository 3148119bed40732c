// Type inference of the Reduce* ops, with axes as an attribute (ReduceSum before 13, the others
// before 18) or as a constant input (afterwards), and of ArgMax/ArgMin.
#include "kiln/opdef/reduce.h"

#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

// The output dims are src/opdef's rule, which the runtime's ReduceSum follows too.
void inferReduce(Node& node) {
  requireNumeric(node, 0);
  setOutput(node, 0, TensorType::of(inputType(node, 0).dtype, opdef::reduceShape(NodeView(node))));
}

// ArgMax/ArgMin: int64 indices along one axis (negative axes from opset 11 on).
void inferArgReduce(Node& node) {
  const TensorType& x = inputType(node, 0);
  requireNumeric(node, 0);
  requireRankAtLeast(node, 0, 1, "an axis to search along");
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis", 0), x.rank()));
  node.attrs.getInt("select_last_index", 0);
  if (x.shape[axis] == 0) {
    fail(node, "axis ", axis, " of ", x.str(), " is empty; expected at least one element to pick");
  }
  opdef::DimList out = x.dims();
  if (node.attrs.getInt("keepdims", 1) != 0) {
    out[axis] = 1;
  } else {
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  }
  setOutput(node, 0, TensorType::of(DataType::int64(), out));
}

// SYMBOLIC_KERNEL: kiln's kernel takes sizes in symbols (kept rows, a static trailing block
// reduced); ReduceSum leaves them to its run-time op, which takes any form.
OpDef reduceOp(const char* name, bool symbolicKernel = true) {
  return {.name = name,
          .opClass = OpClass::kReduction,
          .minInputs = 1,
          .maxInputs = 2,
          .sinceVersion = 1,
          .shapeInputs = {1},
          .inferTypes = inferReduce,
          .symbolicSizes = true,
          .symbolicKernel = symbolicKernel};
}

}  // namespace

void registerReduceOps(const OpAdder& add) {
  add(reduceOp("ReduceMean"));
  add(reduceOp("ReduceSum", false));
  add(reduceOp("ReduceMax"));
  add(reduceOp("ReduceMin"));
  add(reduceOp("ReduceProd"));
  add(reduceOp("ReduceL1"));
  add(reduceOp("ReduceL2"));
  add(reduceOp("ReduceLogSum"));
  add(reduceOp("ReduceLogSumExp"));
  add(reduceOp("ReduceSumSquare"));
  for (const char* name : {"ArgMax", "ArgMin"}) {
    add({.name = name,
         .opClass = OpClass::kReduction,
         .sinceVersion = 1,
         .inferTypes = inferArgReduce,
         .symbolicSizes = true});
  }
}

}  // namespace kiln::ir::ops
