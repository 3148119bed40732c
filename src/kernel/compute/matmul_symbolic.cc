// MatMul of two tensors sized in symbols (attention's Q Kᵀ and P V over a growing sequence): one
// parallel task per output row of every batch, known when the kernel runs; the row accumulates in
// a local buffer, vectorized over N in chunks that fit it, with the k loop outside, then goes
// through the epilogue. Batch dims broadcast as MatMul's do.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"
#include "matmul_shape.h"

namespace kiln::kernel {
namespace {

Index slice(const Index& v, size_t from, size_t to) {
  return Index(v.begin() + static_cast<std::ptrdiff_t>(from),
               v.begin() + static_cast<std::ptrdiff_t>(to));
}

// The flat offset of the matrix of batch B in an operand of batch extents BATCH (broadcast from
// the output's OUT_BATCH), each matrix MAT elements.
Expr matrixOffset(const Expr& b, const Index& outBatch, const Index& batch, const Expr& mat) {
  return flatten(broadcastIndex(unflatten(b, outBatch), batch), batch) * mat;
}

}  // namespace

Stmt emitSymbolicMatMul(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  const ir::Value *av = node.inputs[0], *bv = node.inputs[1], *yv = node.outputs[0];
  if (av->type.rank() < 2 || bv->type.rank() < 2) {
    unsupported(node, "a vector operand with sizes in symbols; kiln's kernel takes matrices");
  }
  DataType t = yv->type.dtype;
  Index as = ctx.extentsOf(av), bs = ctx.extentsOf(bv), ys = ctx.extentsOf(yv);
  Expr m = as[as.size() - 2], k = as.back(), n = bs.back();
  Index outBatch = slice(ys, 0, ys.size() - 2);
  Index aBatch = slice(as, 0, as.size() - 2), bBatch = slice(bs, 0, bs.size() - 2);
  // Columns per chunk: the row's capacity, within the local-buffer budget.
  int64_t width = std::clamp<int64_t>(ctx.placedShape(yv).back(), 1, localElementsCap(t, 1));
  Buffer acc = ctx.localBuffer("acc", t, {width});
  Expr rows = productOf(outBatch) * m;
  return loopRange(ctx, "row", intImm(0), rows, ctx.parallelKind(), [&](const Expr& row) {
    Index derived{binary(BinaryOp::kFloorMod, row, m), binary(BinaryOp::kFloorDiv, row, m)};
    return bindVars(ctx, {"i", "batch"}, derived, [&](const Index& d) {
      const Expr &i = d[0], &b = d[1];
      Index offsets{matrixOffset(b, outBatch, aBatch, m * k) + i * k,
                    matrixOffset(b, outBatch, bBatch, k * n)};
      return bindVars(ctx, {"a_row", "b_mat"}, offsets, [&](const Index& off) {
        Expr chunks = binary(BinaryOp::kFloorDiv, n + intImm(width - 1), intImm(width));
        Stmt body =
            loopRange(ctx, "chunk", intImm(0), chunks, ForKind::kSerial, [&](const Expr& c) {
              Index jw{c * intImm(width), min(intImm(width), n - c * intImm(width))};
              return bindVars(ctx, {"j0", "w"}, jw, [&](const Index& cols) {
                const Expr &j0 = cols[0], &w = cols[1];
                auto overColumns = [&](const std::function<Stmt(const Expr&)>& f) {
                  return loopRange(ctx, "j", intImm(0), w, ctx.vectorKind(), f);
                };
                Stmt zero =
                    overColumns([&](const Expr& j) { return store(acc, j, constant(0, t)); });
                Stmt sums =
                    loopRange(ctx, "k", intImm(0), k, ForKind::kSerial, [&](const Expr& kk) {
                      return bindVar(ctx, "a", ctx.readFlat(av, off[0] + kk), [&](const Expr& a) {
                        return overColumns([&](const Expr& j) {
                          Expr bk = ctx.readFlat(bv, off[1] + kk * n + j0 + j);
                          return store(acc, j, load(acc, j) + a * bk);
                        });
                      });
                    });
                Stmt out = overColumns([&](const Expr& j) {
                  Index idx = unflatten(b, outBatch);
                  idx.push_back(i);
                  idx.push_back(j0 + j);
                  return storeFn(idx, load(acc, j));
                });
                return seq({zero, sums, out});
              });
            });
        return allocate(acc, body);
      });
    });
  });
}

}  // namespace kiln::kernel
