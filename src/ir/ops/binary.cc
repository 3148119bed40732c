// Type inference of broadcasting ops with several inputs: arithmetic, Pow, Equal and Where.
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferArithmetic(Node& node) {
  requireNumeric(node, 0);
  requireSameDtype(node, 0, 1);
  Shape out = broadcastShapes(node, inputType(node, 0).shape, inputType(node, 1).shape);
  setOutput(node, 0, {inputType(node, 0).dtype, out});
}

void inferPow(Node& node) {
  requireNumeric(node, 0);
  requireNumeric(node, 1);
  Shape out = broadcastShapes(node, inputType(node, 0).shape, inputType(node, 1).shape);
  setOutput(node, 0, {inputType(node, 0).dtype, out});
}

void inferEqual(Node& node) {
  requireSameDtype(node, 0, 1);
  Shape out = broadcastShapes(node, inputType(node, 0).shape, inputType(node, 1).shape);
  setOutput(node, 0, {DataType::boolean(), out});
}

void inferWhere(Node& node) {
  const TensorType& cond = inputType(node, 0, "condition");
  if (!cond.dtype.isBool()) {
    fail(node, "condition (input 0) has type ", cond.dtype.str(), "; expected bool");
  }
  requireSameDtype(node, 1, 2);
  Shape out = broadcastShapes(node, cond.shape, inputType(node, 1).shape);
  out = broadcastShapes(node, out, inputType(node, 2).shape);
  setOutput(node, 0, {inputType(node, 1).dtype, out});
}

OpDef binaryOp(const char* name, void (*infer)(Node&), int since) {
  return {.name = name,
          .opClass = OpClass::kBroadcast,
          .minInputs = 2,
          .maxInputs = 2,
          .sinceVersion = since,
          .inferTypes = infer};
}

}  // namespace

void registerBinaryOps(const OpAdder& add) {
  add(binaryOp("Add", inferArithmetic, 7));
  add(binaryOp("Sub", inferArithmetic, 7));
  add(binaryOp("Mul", inferArithmetic, 7));
  add(binaryOp("Div", inferArithmetic, 7));
  add(binaryOp("Pow", inferPow, 7));
  add(binaryOp("Equal", inferEqual, 7));
  add({.name = "Where",
       .opClass = OpClass::kBroadcast,
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 9,
       .inferTypes = inferWhere});
}

}  // namespace kiln::ir::ops
