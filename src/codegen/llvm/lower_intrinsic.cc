// Math functions: float32 exp, log, tanh, erf and sigmoid are emitted as arithmetic (vector_math.h)
// so their loops vectorize; other widths use LLVM intrinsics, and libm for double erf.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "function_lowering.h"
#include "kiln/support/error.h"
#include "type_map.h"
#include "vector_math.h"

namespace kiln::codegen {

using tir::Intrinsic;

namespace {

bool isFloating(DataType t) { return t.isFloat() || t.code == kDLBfloat; }

llvm::Intrinsic::ID floatIntrinsic(Intrinsic f) {
  switch (f) {
    case Intrinsic::kSqrt:
      return llvm::Intrinsic::sqrt;
    case Intrinsic::kAbs:
      return llvm::Intrinsic::fabs;
    case Intrinsic::kFloor:
      return llvm::Intrinsic::floor;
    case Intrinsic::kCeil:
      return llvm::Intrinsic::ceil;
    // Half to even, as ONNX Round and std::nearbyint do.
    case Intrinsic::kRound:
      return llvm::Intrinsic::roundeven;
    default:
      return llvm::Intrinsic::not_intrinsic;
  }
}

}  // namespace

llvm::Value* FunctionLowering::lowerCall(const tir::ExprNode& e) {
  DataType t = e.dtype;
  switch (e.intrinsic) {
    case Intrinsic::kFma:
      return b_.CreateIntrinsic(llvm::Intrinsic::fma, {valueType(ctx_, t)},
                                {lowerExpr(e.args[0]), lowerExpr(e.args[1]), lowerExpr(e.args[2])});
    case Intrinsic::kReduceAdd:
    case Intrinsic::kReduceMax:
    case Intrinsic::kReduceMin:
      return lowerReduce(e.intrinsic, lowerExpr(e.args[0]), e.args[0]->dtype);
    default:
      break;
  }
  llvm::Value* x = lowerExpr(e.args[0]);
  if (!isFloating(t)) {
    // Integer math: only the functions that are exact on integers.
    switch (e.intrinsic) {
      case Intrinsic::kAbs:
        return t.isUInt() ? x : b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b_.getFalse());
      case Intrinsic::kFloor:
      case Intrinsic::kCeil:
      case Intrinsic::kRound:
        return x;
      default:
        KILN_CHECK(false, "math intrinsic on non-floating type ", t.str());
    }
  }
  switch (e.intrinsic) {
    case Intrinsic::kExp:
    case Intrinsic::kLog:
    case Intrinsic::kTanh:
    case Intrinsic::kErf:
    case Intrinsic::kSigmoid:
    case Intrinsic::kSin:
    case Intrinsic::kCos:
    case Intrinsic::kTan:
    case Intrinsic::kAsin:
    case Intrinsic::kAcos:
    case Intrinsic::kAtan:
    case Intrinsic::kSinh:
    case Intrinsic::kCosh:
    case Intrinsic::kAsinh:
    case Intrinsic::kAcosh:
    case Intrinsic::kAtanh:
      return lowerTranscendental(e.intrinsic, x, t);
    case Intrinsic::kPow:
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, lowerExpr(e.args[1]));
    default:
      return b_.CreateUnaryIntrinsic(floatIntrinsic(e.intrinsic), x);
  }
}

// Folds the lanes of V (of type T): a tree of adds for floats (the order is the vector unit's),
// max/min that propagate NaN (llvm.vector.reduce.fmaximum), like the binary max/min.
llvm::Value* FunctionLowering::lowerReduce(Intrinsic f, llvm::Value* v, DataType t) {
  if (isFloating(t)) {
    if (f == Intrinsic::kReduceAdd) {
      llvm::FastMathFlags fmf;
      fmf.setAllowReassoc(true);
      llvm::IRBuilder<>::FastMathFlagGuard guard(b_);
      b_.setFastMathFlags(fmf);
      return b_.CreateFAddReduce(llvm::ConstantFP::getNegativeZero(v->getType()->getScalarType()),
                                 v);
    }
    return f == Intrinsic::kReduceMax ? b_.CreateFPMaximumReduce(v) : b_.CreateFPMinimumReduce(v);
  }
  bool isSigned = t.isInt();
  switch (f) {
    case Intrinsic::kReduceAdd:
      return b_.CreateAddReduce(v);
    case Intrinsic::kReduceMax:
      return b_.CreateIntMaxReduce(v, isSigned);
    default:
      return b_.CreateIntMinReduce(v, isSigned);
  }
}

llvm::Value* FunctionLowering::lowerTranscendental(Intrinsic f, llvm::Value* x, DataType t) {
  if (t.bits == 16) {  // half and bfloat compute in float
    DataType wide = DataType::float32();
    wide.lanes = t.lanes;
    llvm::Value* y = lowerTranscendental(f, castValue(x, t, wide), wide);
    return castValue(y, wide, t);
  }
  bool single = t.isFloat() && t.bits == 32;
  llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
  switch (f) {
    case Intrinsic::kExp:
      return single ? emitExpF32(b_, x) : b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
    case Intrinsic::kLog:
      return single ? emitLogF32(b_, x) : b_.CreateUnaryIntrinsic(llvm::Intrinsic::log, x);
    case Intrinsic::kTanh:
      return single ? emitTanhF32(b_, x) : b_.CreateUnaryIntrinsic(llvm::Intrinsic::tanh, x);
    case Intrinsic::kErf:
      return single ? emitErfF32(b_, x) : callLibm("erff", "erf", x, t);
    case Intrinsic::kSigmoid: {
      llvm::Value* negX = b_.CreateFNeg(x);
      llvm::Value* expNeg =
          single ? emitExpF32(b_, negX) : b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, negX);
      return b_.CreateFDiv(one, b_.CreateFAdd(one, expNeg));
    }
    default:
      return callLibm(strCat(intrinsicName(f), "f"), intrinsicName(f), x, t);
  }
}

// Calls the float or double libm function; vectors lane by lane.
llvm::Value* FunctionLowering::callLibm(const std::string& f32Name, const std::string& f64Name,
                                        llvm::Value* x, DataType t) {
  if (t.lanes > 1) {
    DataType scalar = t;
    scalar.lanes = 1;
    llvm::Value* out = llvm::PoisonValue::get(x->getType());
    for (unsigned i = 0; i < t.lanes; ++i) {
      llvm::Value* lane = callLibm(f32Name, f64Name, b_.CreateExtractElement(x, i), scalar);
      out = b_.CreateInsertElement(out, lane, i);
    }
    return out;
  }
  bool isDouble = t.isFloat() && t.bits == 64;
  KILN_CHECK(isDouble || (t.isFloat() && t.bits == 32), "no libm function for ", t.str());
  llvm::Type* type = x->getType();
  auto* fnType = llvm::FunctionType::get(type, {type}, false);
  llvm::FunctionCallee callee =
      ms_.module->getOrInsertFunction(isDouble ? f64Name : f32Name, fnType);
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    // Pure for our purposes (errno is never read), so LLVM may hoist and CSE the calls.
    fn->setDoesNotThrow();
    fn->setDoesNotAccessMemory();
    fn->setWillReturn();
  }
  return b_.CreateCall(callee, {x});
}

}  // namespace kiln::codegen
