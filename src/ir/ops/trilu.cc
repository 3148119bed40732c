// Trilu: the upper or lower triangle of the matrices in the last two axes, the rest zero. The
// diagonal offset k may be a runtime input: only the output's type must be static.
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferTrilu(Node& node) {
  const TensorType& x = inputType(node, 0);
  requireRankAtLeast(node, 0, 2, "Trilu works on matrices in the last two axes");
  if (hasInput(node, 1)) {
    const TensorType& k = inputType(node, 1, "k");
    if (k.dtype != DataType::int64() || k.numel() != 1) {
      fail(node, "k is ", k.str(), "; expected an int64 scalar");
    }
  }
  int64_t upper = node.attrs.getInt("upper", 1);
  if (upper != 0 && upper != 1) fail(node, "upper is ", upper, "; expected 0 or 1");
  setOutput(node, 0, x);
}

}  // namespace

void registerTriluOps(const OpAdder& add) {
  add({.name = "Trilu",
       .opClass = OpClass::kInjective,
       .maxInputs = 2,
       .sinceVersion = 14,
       .inferTypes = inferTrilu});
}

}  // namespace kiln::ir::ops
