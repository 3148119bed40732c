// Conversions between element types follow C semantics (truncation toward zero for float to int,
// non-zero is true for bool), lane by lane.
#include <llvm/IR/Constants.h>

#include "function_lowering.h"
#include "kiln/support/error.h"
#include "type_map.h"

namespace kiln::codegen {
namespace {

bool isFloating(DataType t) { return t.isFloat() || t.code == kDLBfloat; }

// The integer type of V's shape (scalar or vector) with BITS bits.
llvm::Type* intLike(llvm::Value* v, unsigned bits) {
  llvm::Type* scalar = llvm::Type::getIntNTy(v->getContext(), bits);
  if (auto* vec = llvm::dyn_cast<llvm::VectorType>(v->getType())) {
    return llvm::VectorType::get(scalar, vec->getElementCount());
  }
  return scalar;
}

// bfloat16 conversions are integer operations here: LLVM would call __truncsfbf2 and friends for
// some of them, which libgcc 12 does not have. Float to bfloat16 rounds to nearest even, as kiln's
// constant folding does (ir/element_access.cc); a NaN stays a quiet NaN.
llvm::Value* floatToBfloat(llvm::IRBuilder<>& b, llvm::Value* f32, llvm::Type* to) {
  llvm::Type* i32 = intLike(f32, 32);
  auto c = [i32](uint32_t x) { return llvm::ConstantInt::get(i32, x); };
  llvm::Value* bits = b.CreateBitCast(f32, i32);
  llvm::Value* high = b.CreateLShr(bits, c(16));
  llvm::Value* rounding = b.CreateAdd(b.CreateAnd(high, c(1)), c(0x7fff));
  llvm::Value* rounded = b.CreateLShr(b.CreateAdd(bits, rounding), c(16));
  llvm::Value* nan = b.CreateOr(high, c(0x40));
  llvm::Value* result = b.CreateSelect(b.CreateFCmpUNO(f32, f32), nan, rounded);
  return b.CreateBitCast(b.CreateTrunc(result, intLike(f32, 16)), to);
}

llvm::Value* bfloatToFloat(llvm::IRBuilder<>& b, llvm::Value* bf16, llvm::Type* to) {
  llvm::Type* i32 = intLike(bf16, 32);
  llvm::Value* wide = b.CreateZExt(b.CreateBitCast(bf16, intLike(bf16, 16)), i32);
  return b.CreateBitCast(b.CreateShl(wide, llvm::ConstantInt::get(i32, 16)), to);
}

}  // namespace

llvm::Value* FunctionLowering::castValue(llvm::Value* v, DataType from, DataType to) {
  if (from == to) return v;
  KILN_CHECK(from.lanes == to.lanes, "cannot cast ", from.str(), " to ", to.str());
  llvm::Type* type = valueType(ctx_, to);
  DataType f32 = DataType::float32();
  f32.lanes = from.lanes;
  if (from.code == kDLBfloat) return castValue(bfloatToFloat(b_, v, valueType(ctx_, f32)), f32, to);
  if (to.code == kDLBfloat) return floatToBfloat(b_, castValue(v, from, f32), type);
  llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
  if (to.isBool()) {
    return isFloating(from) ? b_.CreateFCmpUNE(v, zero) : b_.CreateICmpNE(v, zero);
  }
  if (from.isBool()) {
    return isFloating(to) ? b_.CreateUIToFP(v, type) : b_.CreateZExt(v, type);
  }
  if (isFloating(from) && isFloating(to)) {
    return from.bits < to.bits ? b_.CreateFPExt(v, type) : b_.CreateFPTrunc(v, type);
  }
  if (isFloating(to)) return from.isInt() ? b_.CreateSIToFP(v, type) : b_.CreateUIToFP(v, type);
  if (isFloating(from)) return to.isInt() ? b_.CreateFPToSI(v, type) : b_.CreateFPToUI(v, type);
  if (from.bits == to.bits) return v;  // int <-> uint of one width: same bits
  if (from.bits > to.bits) return b_.CreateTrunc(v, type);
  return from.isInt() ? b_.CreateSExt(v, type) : b_.CreateZExt(v, type);
}

}  // namespace kiln::codegen
