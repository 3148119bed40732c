// Type inference of broadcasting ops with two or three inputs: arithmetic, Pow, Mod, BitShift,
// comparisons, logical And/Or/Xor and Where.
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferArithmetic(Node& node) {
  requireNumeric(node, 0);
  requireSameDtype(node, 0, 1);
  opdef::DimList out = broadcastShapes(node, inputType(node, 0).dims(), inputType(node, 1).dims());
  setOutput(node, 0, TensorType::of(inputType(node, 0).dtype, out));
}

void inferPow(Node& node) {
  requireNumeric(node, 0);
  requireNumeric(node, 1);
  opdef::DimList out = broadcastShapes(node, inputType(node, 0).dims(), inputType(node, 1).dims());
  setOutput(node, 0, TensorType::of(inputType(node, 0).dtype, out));
}

void inferMod(Node& node) {
  inferArithmetic(node);
  bool fmod = node.attrs.getInt("fmod", 0) != 0;
  DataType t = inputType(node, 0).dtype;
  if (isFloatType(t) && !fmod) {
    fail(node, "inputs are ", t.str(), " with fmod=0; expected fmod=1 for floating-point Mod");
  }
}

void inferBitShift(Node& node) {
  inferArithmetic(node);
  DataType t = inputType(node, 0).dtype;
  if (!t.isUInt()) fail(node, "inputs are ", t.str(), "; expected an unsigned integer type");
  std::string direction = node.attrs.getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    fail(node, "direction is '", direction, "'; expected 'LEFT' or 'RIGHT'");
  }
}

void inferCompare(Node& node) {
  requireNumeric(node, 0);
  requireSameDtype(node, 0, 1);
  opdef::DimList out = broadcastShapes(node, inputType(node, 0).dims(), inputType(node, 1).dims());
  setOutput(node, 0, TensorType::of(DataType::boolean(), out));
}

void inferLogical(Node& node) {
  for (size_t i = 0; i < 2; ++i) {
    DataType t = inputType(node, i).dtype;
    if (!t.isBool()) fail(node, "input ", i, " has type ", t.str(), "; expected bool");
  }
  opdef::DimList out = broadcastShapes(node, inputType(node, 0).dims(), inputType(node, 1).dims());
  setOutput(node, 0, TensorType::of(DataType::boolean(), out));
}

void inferEqual(Node& node) {
  requireSameDtype(node, 0, 1);
  opdef::DimList out = broadcastShapes(node, inputType(node, 0).dims(), inputType(node, 1).dims());
  setOutput(node, 0, TensorType::of(DataType::boolean(), out));
}

void inferWhere(Node& node) {
  const TensorType& cond = inputType(node, 0, "condition");
  if (!cond.dtype.isBool()) {
    fail(node, "condition (input 0) has type ", cond.dtype.str(), "; expected bool");
  }
  requireSameDtype(node, 1, 2);
  opdef::DimList out = broadcastShapes(node, cond.dims(), inputType(node, 1).dims());
  out = broadcastShapes(node, out, inputType(node, 2).dims());
  setOutput(node, 0, TensorType::of(inputType(node, 1).dtype, out));
}

OpDef binaryOp(const char* name, void (*infer)(Node&), int since) {
  return {.name = name,
          .opClass = OpClass::kBroadcast,
          .minInputs = 2,
          .maxInputs = 2,
          .sinceVersion = since,
          .inferTypes = infer,
          .symbolicSizes = true,
          .symbolicKernel = true};
}

}  // namespace

void registerBinaryOps(const OpAdder& add) {
  add(binaryOp("Add", inferArithmetic, 7));
  add(binaryOp("Sub", inferArithmetic, 7));
  add(binaryOp("Mul", inferArithmetic, 7));
  add(binaryOp("Div", inferArithmetic, 7));
  add(binaryOp("Pow", inferPow, 7));
  add(binaryOp("Mod", inferMod, 10));
  add(binaryOp("BitShift", inferBitShift, 11));
  add(binaryOp("Equal", inferEqual, 7));
  add(binaryOp("Less", inferCompare, 7));
  add(binaryOp("Greater", inferCompare, 7));
  add(binaryOp("LessOrEqual", inferCompare, 12));
  add(binaryOp("GreaterOrEqual", inferCompare, 12));
  add(binaryOp("And", inferLogical, 7));
  add(binaryOp("Or", inferLogical, 7));
  add(binaryOp("Xor", inferLogical, 7));
  add({.name = "Where",
       .opClass = OpClass::kBroadcast,
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 9,
       .inferTypes = inferWhere,
       .symbolicSizes = true,
       .symbolicKernel = true});
}

}  // namespace kiln::ir::ops
