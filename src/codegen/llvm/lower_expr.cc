// Scalar (and fixed-vector) expressions of the loop IR become SSA values; index arithmetic is i64.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PatternMatch.h>

#include <algorithm>

#include "function_lowering.h"
#include "kiln/support/error.h"
#include "type_map.h"

namespace kiln::codegen {

using tir::BinaryOp;
using tir::CompareOp;
using tir::ExprKind;

llvm::Value* FunctionLowering::lowerExpr(const tir::Expr& e) {
  KILN_CHECK(e != nullptr, "null expression");
  switch (e->kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
      return lowerImmediate(*e);
    case ExprKind::kVar:
      return lookupVar(e->name);
    case ExprKind::kBinary:
      return lowerBinary(*e);
    case ExprKind::kCompare:
      return lowerCompare(*e);
    case ExprKind::kSelect:
      return lowerSelect(*e);
    case ExprKind::kLoad:
      return lowerLoad(*e);
    case ExprKind::kCast:
      return castValue(lowerExpr(e->a), e->a->dtype, e->dtype);
    case ExprKind::kCall:
      return lowerCall(*e);
    case ExprKind::kRamp:
      return lowerRamp(*e);
    case ExprKind::kBroadcast:
      return b_.CreateVectorSplat(e->dtype.lanes, lowerExpr(e->a));
  }
  KILN_CHECK(false, "unknown expression kind ", static_cast<int>(e->kind));
  return nullptr;
}

llvm::Value* FunctionLowering::lowerImmediate(const tir::ExprNode& e) {
  llvm::Type* type = valueType(ctx_, e.dtype);
  bool fromInt = e.kind == ExprKind::kIntImm;
  if (e.dtype.isFloat() || e.dtype.code == kDLBfloat) {
    return llvm::ConstantFP::get(type, fromInt ? static_cast<double>(e.intValue) : e.floatValue);
  }
  int64_t v = fromInt ? e.intValue : static_cast<int64_t>(e.floatValue);
  if (e.dtype.isBool()) v = v != 0;
  return llvm::ConstantInt::get(type, static_cast<uint64_t>(v), /*IsSigned=*/!e.dtype.isUInt());
}

namespace {

// A constant (scalar or splat) that is not NaN.
bool isNumberConstant(llvm::Value* v) {
  const llvm::APFloat* f = nullptr;
  return llvm::PatternMatch::match(v, llvm::PatternMatch::m_APFloat(f)) && !f->isNaN();
}

}  // namespace

// Float max and min propagate NaN, as ONNX, numpy and PyTorch do (maxnum would turn Relu(NaN)
// into 0). Against a number constant (Relu, Clip) a compare and select is exact and is the one
// instruction x86's max/min is: C > x ? C : x yields x when x is NaN. Otherwise llvm.maximum.
llvm::Value* FunctionLowering::floatMinMax(bool isMax, llvm::Value* a, llvm::Value* b) {
  if (isNumberConstant(a)) std::swap(a, b);
  if (isNumberConstant(b)) {
    llvm::Value* keepConstant = isMax ? b_.CreateFCmpOGT(b, a) : b_.CreateFCmpOLT(b, a);
    return b_.CreateSelect(keepConstant, b, a);
  }
  return isMax ? b_.CreateMaximum(a, b) : b_.CreateMinimum(a, b);
}

llvm::Value* FunctionLowering::lowerBinary(const tir::ExprNode& e) {
  DataType t = e.dtype;
  llvm::Value* a = lowerExpr(e.a);
  llvm::Value* b = lowerExpr(e.b);
  if (t.isFloat() || t.code == kDLBfloat) {
    switch (e.binaryOp) {
      case BinaryOp::kAdd:
        return b_.CreateFAdd(a, b);
      case BinaryOp::kSub:
        return b_.CreateFSub(a, b);
      case BinaryOp::kMul:
        return b_.CreateFMul(a, b);
      case BinaryOp::kDiv:
        return b_.CreateFDiv(a, b);
      case BinaryOp::kMod:
        return b_.CreateFRem(a, b);
      case BinaryOp::kFloorDiv:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
      case BinaryOp::kFloorMod: {
        llvm::Value* q = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
        return b_.CreateFSub(a, b_.CreateFMul(q, b));
      }
      case BinaryOp::kMin:
        return floatMinMax(/*isMax=*/false, a, b);
      case BinaryOp::kMax:
        return floatMinMax(/*isMax=*/true, a, b);
      case BinaryOp::kAnd:
      case BinaryOp::kOr:
      case BinaryOp::kShl:
      case BinaryOp::kShr:
        break;
    }
    KILN_CHECK(false, "logical or bit operator on floating-point type ", t.str());
  }
  bool isSigned = t.isInt();
  // Signed index arithmetic never wraps; telling LLVM so lets it reason about loop bounds.
  bool nsw = isSigned && t.bits >= 32;
  switch (e.binaryOp) {
    case BinaryOp::kAdd:
      return b_.CreateAdd(a, b, "", false, nsw);
    case BinaryOp::kSub:
      return b_.CreateSub(a, b, "", false, nsw);
    case BinaryOp::kMul:
      return b_.CreateMul(a, b, "", false, nsw);
    case BinaryOp::kDiv:
      return isSigned ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
    case BinaryOp::kMod:
      return isSigned ? b_.CreateSRem(a, b) : b_.CreateURem(a, b);
    case BinaryOp::kFloorDiv:
      return isSigned ? floorDivInt(a, b) : b_.CreateUDiv(a, b);
    case BinaryOp::kFloorMod:
      return isSigned ? floorModInt(a, b) : b_.CreateURem(a, b);
    case BinaryOp::kMin:
      return b_.CreateBinaryIntrinsic(isSigned ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a,
                                      b);
    case BinaryOp::kMax:
      return b_.CreateBinaryIntrinsic(isSigned ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a,
                                      b);
    case BinaryOp::kAnd:
      return b_.CreateAnd(a, b);
    case BinaryOp::kOr:
      return b_.CreateOr(a, b);
    case BinaryOp::kShl:
    case BinaryOp::kShr: {
      // LLVM makes a shift by the width or more poison; the loop IR defines it as 0.
      llvm::Value* shifted =
          e.binaryOp == BinaryOp::kShl ? b_.CreateShl(a, b) : b_.CreateLShr(a, b);
      llvm::Value* width = llvm::ConstantInt::get(a->getType(), t.bits);
      return b_.CreateSelect(b_.CreateICmpUGE(b, width), llvm::Constant::getNullValue(a->getType()),
                             shifted);
    }
  }
  KILN_CHECK(false, "unknown binary operator ", static_cast<int>(e.binaryOp));
  return nullptr;
}

llvm::Value* FunctionLowering::lowerCompare(const tir::ExprNode& e) {
  DataType t = e.a->dtype;  // the constructor gave both operands one type
  llvm::Value* a = lowerExpr(e.a);
  llvm::Value* b = lowerExpr(e.b);
  using P = llvm::CmpInst::Predicate;
  if (t.isFloat() || t.code == kDLBfloat) {
    static constexpr P kFloat[] = {P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OGT,
                                   P::FCMP_OGE, P::FCMP_OEQ, P::FCMP_UNE};
    return b_.CreateFCmp(kFloat[static_cast<int>(e.compareOp)], a, b);
  }
  static constexpr P kSigned[] = {P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT,
                                  P::ICMP_SGE, P::ICMP_EQ,  P::ICMP_NE};
  static constexpr P kUnsigned[] = {P::ICMP_ULT, P::ICMP_ULE, P::ICMP_UGT,
                                    P::ICMP_UGE, P::ICMP_EQ,  P::ICMP_NE};
  const P* table = t.isInt() ? kSigned : kUnsigned;
  return b_.CreateICmp(table[static_cast<int>(e.compareOp)], a, b);
}

llvm::Value* FunctionLowering::toBool(llvm::Value* v, DataType from) {
  if (from.isBool()) return v;
  DataType to = DataType::boolean();
  to.lanes = from.lanes;
  return castValue(v, from, to);
}

llvm::Value* FunctionLowering::lowerSelect(const tir::ExprNode& e) {
  llvm::Value* cond = toBool(lowerExpr(e.a), e.a->dtype);
  llvm::Value* t = lowerExpr(e.b);
  llvm::Value* f = lowerExpr(e.c);
  return b_.CreateSelect(cond, t, f);
}

llvm::Value* FunctionLowering::lowerLoad(const tir::ExprNode& e) {
  KILN_CHECK(e.buffer != nullptr, "load without a buffer");
  llvm::Value* v = loadElements(e.buffer, e.index);
  if (e.buffer->dtype.isBool()) v = b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  return v;
}

}  // namespace kiln::codegen
