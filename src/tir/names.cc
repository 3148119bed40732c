// The spelled names of operators, intrinsics and loop kinds, shared by the printer and the parser
// so the two cannot drift apart.
#include "kiln/support/error.h"
#include "kiln/tir/stmt.h"

namespace kiln::tir {

const char* binaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kMod:
      return "%";
    case BinaryOp::kAnd:
      return "&&";
    case BinaryOp::kOr:
      return "||";
    case BinaryOp::kFloorDiv:
      return "floordiv";
    case BinaryOp::kShl:
      return "shift_left";
    case BinaryOp::kShr:
      return "shift_right";
    case BinaryOp::kFloorMod:
      return "floormod";
    case BinaryOp::kMin:
      return "min";
    case BinaryOp::kMax:
      return "max";
  }
  KILN_CHECK(false, "unknown binary operator ", static_cast<int>(op));
  return "";
}

const char* compareOpName(CompareOp op) {
  switch (op) {
    case CompareOp::kLT:
      return "<";
    case CompareOp::kLE:
      return "<=";
    case CompareOp::kGT:
      return ">";
    case CompareOp::kGE:
      return ">=";
    case CompareOp::kEQ:
      return "==";
    case CompareOp::kNE:
      return "!=";
  }
  KILN_CHECK(false, "unknown compare operator ", static_cast<int>(op));
  return "";
}

const char* intrinsicName(Intrinsic f) {
  switch (f) {
    case Intrinsic::kExp:
      return "exp";
    case Intrinsic::kLog:
      return "log";
    case Intrinsic::kSqrt:
      return "sqrt";
    case Intrinsic::kTanh:
      return "tanh";
    case Intrinsic::kAbs:
      return "abs";
    case Intrinsic::kFloor:
      return "floor";
    case Intrinsic::kCeil:
      return "ceil";
    case Intrinsic::kRound:
      return "round";
    case Intrinsic::kErf:
      return "erf";
    case Intrinsic::kSigmoid:
      return "sigmoid";
    case Intrinsic::kSin:
      return "sin";
    case Intrinsic::kCos:
      return "cos";
    case Intrinsic::kTan:
      return "tan";
    case Intrinsic::kAsin:
      return "asin";
    case Intrinsic::kAcos:
      return "acos";
    case Intrinsic::kAtan:
      return "atan";
    case Intrinsic::kSinh:
      return "sinh";
    case Intrinsic::kCosh:
      return "cosh";
    case Intrinsic::kAsinh:
      return "asinh";
    case Intrinsic::kAcosh:
      return "acosh";
    case Intrinsic::kAtanh:
      return "atanh";
    case Intrinsic::kPow:
      return "pow";
    case Intrinsic::kFma:
      return "fma";
    case Intrinsic::kReduceAdd:
      return "reduce_add";
    case Intrinsic::kReduceMax:
      return "reduce_max";
    case Intrinsic::kReduceMin:
      return "reduce_min";
  }
  KILN_CHECK(false, "unknown intrinsic ", static_cast<int>(f));
  return "";
}

int intrinsicArity(Intrinsic f) {
  switch (f) {
    case Intrinsic::kPow:
      return 2;
    case Intrinsic::kFma:
      return 3;
    default:
      return 1;
  }
}

const char* forKindName(ForKind k) {
  switch (k) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unrolled";
  }
  KILN_CHECK(false, "unknown loop kind ", static_cast<int>(k));
  return "";
}

}  // namespace kiln::tir
