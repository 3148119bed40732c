// A matrix product as its lowerings see it: batch, sizes and the strides of both operands, so
// MatMul (with batch broadcasting) and Gemm (with transposes) share one description.
#pragma once

#include <functional>

#include "../lower_context.h"

namespace kiln::kernel {

struct Matmul {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  DataType t;
  const ir::Value* a = nullptr;
  const ir::Value* b = nullptr;
  // A(i, k) = a[aOff + i*aRow + k*aCol]; B(k, j) = b[bOff + k*bRow + j*bCol].
  int64_t aRow = 0, aCol = 0, bRow = 0, bCol = 0;
  std::function<Expr(const Expr&batch)> aOff, bOff;
  std::function<Index(const Expr& batch, const Expr& i, const Expr& j)> outIndex;
  std::function<Expr(const Expr& acc, const Index& idx)> finalize;
};

// The product on the gemm micro-kernel, for float32 on a vector target: each task copies a panel
// of B (K x NV vectors, zero past N) into a local buffer, then runs its row tiles over it. Null
// when the panel would not fit the local-buffer budget (the caller then uses another schedule).
Stmt emitPanelMatmul(LowerContext& ctx, const Matmul& mm, const StoreFn& storeFn);

// MatMul of operands sized in symbols (matrices, any batch dims): a task per output row, known
// when the kernel runs (matmul_symbolic.cc).
Stmt emitSymbolicMatMul(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn);

}  // namespace kiln::kernel
