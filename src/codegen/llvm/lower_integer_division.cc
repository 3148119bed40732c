// Floor division and modulo round toward negative infinity, unlike LLVM's sdiv/srem; index
// expressions of padded or strided accesses rely on that for negative operands.
#include <llvm/IR/Constants.h>

#include "function_lowering.h"

namespace kiln::codegen {
namespace {

// True where the truncated remainder is non-zero and has the opposite sign of the divisor: exactly
// the lanes where truncation and flooring differ.
llvm::Value* needsAdjustment(llvm::IRBuilder<>& b, llvm::Value* r, llvm::Value* divisor) {
  llvm::Value* zero = llvm::Constant::getNullValue(r->getType());
  llvm::Value* nonZero = b.CreateICmpNE(r, zero);
  llvm::Value* signsDiffer = b.CreateICmpSLT(b.CreateXor(r, divisor), zero);
  return b.CreateAnd(nonZero, signsDiffer);
}

}  // namespace

llvm::Value* FunctionLowering::floorDivInt(llvm::Value* a, llvm::Value* b) {
  llvm::Value* q = b_.CreateSDiv(a, b);
  llvm::Value* r = b_.CreateSRem(a, b);
  llvm::Value* adjust = b_.CreateZExt(needsAdjustment(b_, r, b), q->getType());
  return b_.CreateSub(q, adjust);
}

llvm::Value* FunctionLowering::floorModInt(llvm::Value* a, llvm::Value* b) {
  llvm::Value* r = b_.CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(r->getType());
  return b_.CreateAdd(r, b_.CreateSelect(needsAdjustment(b_, r, b), b, zero));
}

}  // namespace kiln::codegen
