// Which ops' own type inference also holds for nodes whose shapes are known only at run time (an
// input sized at run time): the elementwise ops, Cast, CastLike and Where (which broadcast by
// src/opdef's rule, unknown dims included), Shape and Size (which read only the rank), Identity and
// ReduceSum. attachRunTimeShapes marks them, when the runtime executes them, as run-time capable.
// (Ops whose rules live in src/opdef register inferRunTime themselves.)
#include <set>

#include "kiln/runtime/runtime_op.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

bool ownInferenceHolds(const std::string& op) {
  static const std::set<std::string> kOps = {
      "Neg",   "Abs",   "Sign",     "Relu",       "Sqrt",        "Exp",
      "Log",   "Cos",   "Sin",      "Tan",        "Tanh",        "Erf",
      "Floor", "Ceil",  "Round",    "Reciprocal", "Sigmoid",     "Not",
      "Add",   "Sub",   "Mul",      "Div",        "Pow",         "Max",
      "Min",   "Equal", "Less",     "Greater",    "LessOrEqual", "GreaterOrEqual",
      "And",   "Or",    "Xor",      "Cast",       "CastLike",    "Where",
      "Shape", "Size",  "Identity", "ReduceSum"};
  return kOps.count(op) != 0;
}

}  // namespace

void attachRunTimeShapes(OpDef& def) {
  if (runtime::findRuntimeOp(def.name) != nullptr && ownInferenceHolds(def.name)) {
    def.inferRunTime = def.inferTypes;
  }
}

}  // namespace kiln::ir::ops
