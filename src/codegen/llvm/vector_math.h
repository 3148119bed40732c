// float32 exp, log, tanh and erf written as plain IR arithmetic, so loops that use them vectorize
// (LLVM's intrinsics become scalar libm calls, which block the loop vectorizer).
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace kiln::codegen {

// Each takes and returns float or <N x float>; accurate to a few ulp over the whole range, with
// IEEE results for infinities and NaN. Results below ~1e-38 flush to zero.
llvm::Value* emitExpF32(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* emitLogF32(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* emitTanhF32(llvm::IRBuilder<>& b, llvm::Value* x);
llvm::Value* emitErfF32(llvm::IRBuilder<>& b, llvm::Value* x);

}  // namespace kiln::codegen
