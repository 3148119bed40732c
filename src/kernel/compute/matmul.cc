// Gemm and MatMul (with batch broadcasting): a tile of rows accumulates a slice of the output
// row vectorized over N with the k loop outside, or, when B is contiguous along k (transB), each
// element is a vectorized dot product; the epilogue runs on each finished element.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"
#include "matmul_shape.h"

namespace kiln::kernel {
namespace {

int64_t pickTile(int64_t want, int64_t extent) {
  int64_t t = std::max<int64_t>(1, std::min(want, extent));
  while (extent % t != 0) --t;
  return t;
}

// Binds the batch offsets once per task so inner loops see plain variables.
Stmt withOffsets(LowerContext& ctx, const Matmul& mm, const Expr& bIdx,
                 const std::function<Stmt(const Expr&, const Expr&)>& body) {
  Expr aOff = mm.aOff(bIdx), bOff = mm.bOff(bIdx);
  if (aOff->kind == ExprKind::kIntImm && bOff->kind == ExprKind::kIntImm) return body(aOff, bOff);
  Expr av = ctx.freshVar("a_off"), bv = ctx.freshVar("b_off");
  return let(av, aOff, let(bv, bOff, body(av, bv)));
}

// Rows [i0, i0 + mTile) x columns [j0, j0 + width): accumulated over k in a local tile with
// constant indices, which LLVM keeps in vector registers, then stored through the epilogue.
Stmt axpyTile(LowerContext& ctx, const Matmul& mm, const StoreFn& storeFn, const Expr& bIdx,
              const Expr& aOff, const Expr& bOff, const Expr& i0, const Expr& j0, int64_t mTile,
              int64_t width) {
  Buffer acc = ctx.localBuffer("acc", mm.t, {mTile * width});
  auto at = [&](int64_t r, const Expr& j) { return intImm(r * width) + j; };
  std::vector<Stmt> init, epilogue;
  for (int64_t r = 0; r < mTile; ++r) {
    init.push_back(loop(ctx, "j", width, ctx.vectorKind(),
                        [&](const Expr& j) { return store(acc, at(r, j), constant(0, mm.t)); }));
    epilogue.push_back(loop(ctx, "j", width, ctx.vectorKind(), [&](const Expr& j) {
      Index idx = mm.outIndex(bIdx, i0 + intImm(r), j0 + j);
      return storeFn(idx, mm.finalize(load(acc, at(r, j)), idx));
    }));
  }
  Stmt body = loop(ctx, "k", mm.k, ForKind::kSerial, [&](const Expr& kk) {
    std::vector<Expr> aVars, aVals;
    for (int64_t r = 0; r < mTile; ++r) {
      aVars.push_back(ctx.freshVar("a", mm.t));
      aVals.push_back(
          ctx.readFlat(mm.a, aOff + (i0 + intImm(r)) * intImm(mm.aRow) + kk * intImm(mm.aCol)));
    }
    Stmt inner = loop(ctx, "j", width, ctx.vectorKind(), [&](const Expr& j) {
      Expr bv = ctx.readFlat(mm.b, bOff + kk * intImm(mm.bRow) + (j0 + j) * intImm(mm.bCol));
      std::vector<Stmt> updates;
      for (int64_t r = 0; r < mTile; ++r) {
        updates.push_back(store(acc, at(r, j), load(acc, at(r, j)) + aVars[r] * bv));
      }
      return seq(updates);
    });
    for (int64_t r = mTile; r-- > 0;) inner = let(aVars[r], aVals[r], inner);
    return inner;
  });
  return allocate(acc, seq({seq(init), body, seq(epilogue)}));
}

// B contiguous along N: register tiles of mTile rows x WIDTH columns, a task taking a group of
// tiles. A ragged last tile is shifted left to overlap its neighbour (recomputing a few columns,
// which store the same values) so every tile has the same constant width.
Stmt emitAxpy(LowerContext& ctx, const Matmul& mm, const StoreFn& storeFn) {
  int64_t lanes = std::max(1, ctx.config().target.lanes);
  // Register tiles stay within the stack budget of local buffers even under odd knob values.
  int64_t cap = localElementsCap(mm.t, 2);
  int64_t mTile = pickTile(std::min(cap, ctx.knob("m_tile", 4)), mm.m);
  int64_t width =
      std::min(mm.n, std::clamp<int64_t>(ctx.knob("n_tile", 2 * lanes), 1, cap / mTile));
  int64_t tiles = ceilDiv(mm.n, width);
  int64_t group = std::max<int64_t>(1, ctx.knob("n_group", std::max<int64_t>(1, 256 / width)));
  int64_t groups = ceilDiv(tiles, group), mBlocks = mm.m / mTile;
  return loop(ctx, "task", mm.batch * mBlocks * groups, ctx.parallelKind(), [&](const Expr& task) {
    Expr rest = floorDivBy(task, groups);
    Index derived{binary(BinaryOp::kFloorMod, rest, intImm(mBlocks)) * intImm(mTile),
                  binary(BinaryOp::kFloorMod, task, intImm(groups)) * intImm(group),
                  floorDivBy(rest, mBlocks)};
    return bindVars(ctx, {"i0", "t0", "batch"}, derived, [&](const Index& d) {
      const Expr &i0 = d[0], &t0 = d[1], &bIdx = d[2];
      Expr count = tiles % group == 0 ? intImm(group) : min(intImm(group), intImm(tiles) - t0);
      return withOffsets(ctx, mm, bIdx, [&](const Expr& aOff, const Expr& bOff) {
        return loopRange(ctx, "tile", t0, count, ForKind::kSerial, [&](const Expr& tile) {
          Expr j0 = min(tile * intImm(width), intImm(mm.n - width));
          return bindVar(ctx, "j0", j0, [&](const Expr& j) {
            return axpyTile(ctx, mm, storeFn, bIdx, aOff, bOff, i0, j, mTile, width);
          });
        });
      });
    });
  });
}

// B contiguous along K (transB): a block of mTile x nTile dot products, each kept as one partial
// sum per vector lane in registers, reduced across lanes at the end.
Stmt emitDot(LowerContext& ctx, const Matmul& mm, const StoreFn& storeFn) {
  int64_t lanes = std::max(1, ctx.config().target.lanes);
  // One partial sum per lane of each dot product, within the stack budget of local buffers.
  int64_t cap = std::max<int64_t>(1, localElementsCap(mm.t, 2) / lanes);
  int64_t mTile = pickTile(std::min(cap, ctx.knob("m_tile", 2)), mm.m);
  int64_t nTile = pickTile(std::min(cap / mTile, ctx.knob("n_tile", 4)), mm.n);
  int64_t mBlocks = mm.m / mTile, nBlocks = mm.n / nTile;
  int64_t chunks = mm.k / lanes, tail = mm.k % lanes;
  return loop(ctx, "task", mm.batch * mBlocks * nBlocks, ctx.parallelKind(), [&](const Expr& task) {
    Expr rest = floorDivBy(task, nBlocks);
    Index derived{binary(BinaryOp::kFloorMod, rest, intImm(mBlocks)) * intImm(mTile),
                  binary(BinaryOp::kFloorMod, task, intImm(nBlocks)) * intImm(nTile),
                  floorDivBy(rest, mBlocks)};
    return bindVars(ctx, {"i0", "j0", "batch"}, derived, [&](const Index& d) {
      const Expr &i0 = d[0], &j0 = d[1], &bIdx = d[2];
      return withOffsets(ctx, mm, bIdx, [&](const Expr& aOff, const Expr& bOff) {
        Buffer acc = ctx.localBuffer("acc", mm.t, {mTile * nTile * lanes});
        auto slot = [&](int64_t r, int64_t c, const Expr& l) {
          return intImm((r * nTile + c) * lanes) + l;
        };
        auto aAt = [&](int64_t r, const Expr& kk) {
          return ctx.readFlat(mm.a,
                              aOff + (i0 + intImm(r)) * intImm(mm.aRow) + kk * intImm(mm.aCol));
        };
        auto bAt = [&](int64_t c, const Expr& kk) {
          return ctx.readFlat(mm.b, bOff + (j0 + intImm(c)) * intImm(mm.bCol) + kk);
        };
        auto update = [&](const Expr& kk, const Expr& l) {
          std::vector<Stmt> s;
          for (int64_t r = 0; r < mTile; ++r) {
            for (int64_t c = 0; c < nTile; ++c) {
              s.push_back(
                  store(acc, slot(r, c, l), load(acc, slot(r, c, l)) + aAt(r, kk) * bAt(c, kk)));
            }
          }
          return seq(s);
        };
        Stmt init = loop(ctx, "l", mTile * nTile * lanes, ctx.vectorKind(),
                         [&](const Expr& l) { return store(acc, l, constant(0, mm.t)); });
        Stmt main = loop(ctx, "kc", chunks, ForKind::kSerial, [&](const Expr& kc) {
          return loop(ctx, "l", lanes, ctx.vectorKind(),
                      [&](const Expr& l) { return update(kc * intImm(lanes) + l, l); });
        });
        Stmt rem = loop(ctx, "kt", tail, ForKind::kSerial,
                        [&](const Expr& kt) { return update(intImm(chunks * lanes) + kt, kt); });
        std::vector<Stmt> finish;
        for (int64_t r = 0; r < mTile; ++r) {
          for (int64_t c = 0; c < nTile; ++c) {
            finish.push_back(
                withScalar(ctx, "sum", load(acc, slot(r, c, intImm(0))), [&](const Buffer& sum) {
                  Stmt fold = loopRange(
                      ctx, "l", intImm(1), intImm(lanes - 1), ForKind::kSerial, [&](const Expr& l) {
                        return store(sum, intImm(0),
                                     load(sum, intImm(0)) + load(acc, slot(r, c, l)));
                      });
                  Index idx = mm.outIndex(bIdx, i0 + intImm(r), j0 + intImm(c));
                  return seq({fold, storeFn(idx, mm.finalize(load(sum, intImm(0)), idx))});
                }));
          }
        }
        return allocate(acc, seq({init, main, rem, seq(finish)}));
      });
    });
  });
}

Stmt emitMatmul(LowerContext& ctx, const Matmul& mm, const StoreFn& storeFn) {
  if (mm.batch * mm.m * mm.n == 0) return seq({});
  if (Stmt s = emitPanelMatmul(ctx, mm, storeFn)) return s;
  bool dot = mm.bRow == 1 && mm.n > 0 && (mm.bCol != 1 || mm.n == 1);
  return dot ? emitDot(ctx, mm, storeFn) : emitAxpy(ctx, mm, storeFn);
}

Stmt emitGemm(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  const Dims& as = node.inputs[0]->type.shape;
  const Dims& bs = node.inputs[1]->type.shape;
  if (as.size() != 2 || bs.size() != 2) unsupported(node, "A and B must be 2-D");
  bool ta = node.attrs.getInt("transA", 0) != 0, tb = node.attrs.getInt("transB", 0) != 0;
  Matmul mm;
  mm.t = node.outputs[0]->type.dtype;
  mm.a = node.inputs[0];
  mm.b = node.inputs[1];
  mm.m = ta ? as[1] : as[0];
  mm.k = ta ? as[0] : as[1];
  mm.n = tb ? bs[0] : bs[1];
  if ((tb ? bs[1] : bs[0]) != mm.k) unsupported(node, "inner dimensions of A and B differ");
  mm.aRow = ta ? 1 : mm.k;
  mm.aCol = ta ? mm.m : 1;
  mm.bRow = tb ? 1 : mm.n;
  mm.bCol = tb ? mm.k : 1;
  mm.aOff = mm.bOff = [](const Expr&) { return intImm(0); };
  mm.outIndex = [](const Expr&, const Expr& i, const Expr& j) { return Index{i, j}; };
  double alpha = node.attrs.getFloat("alpha", 1.0), beta = node.attrs.getFloat("beta", 1.0);
  bool useC = hasInput(node, 2) && beta != 0;
  mm.finalize = [&ctx, &node, alpha, beta, useC, t = mm.t](const Expr& acc, const Index& idx) {
    Expr v = alpha == 1 ? acc : acc * constant(alpha, t);
    if (useC) {
      Expr cv = inputAt(ctx, node, 2, idx);
      v = v + (beta == 1 ? cv : cv * constant(beta, t));
    }
    return v;
  };
  return emitMatmul(ctx, mm, storeFn);
}

Stmt emitMatMul(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  if (ctx.symbolic()) return emitSymbolicMatMul(ctx, node, storeFn);
  Dims as = node.inputs[0]->type.shape;
  Dims bs = node.inputs[1]->type.shape;
  const Dims& ys = node.outputs[0]->type.shape;
  if (as.empty() || bs.empty()) unsupported(node, "MatMul of a scalar");
  bool aVec = as.size() == 1, bVec = bs.size() == 1;
  if (aVec) as.insert(as.begin(), 1);
  if (bVec) bs.push_back(1);
  Matmul mm;
  mm.t = node.outputs[0]->type.dtype;
  mm.a = node.inputs[0];
  mm.b = node.inputs[1];
  mm.m = as[as.size() - 2];
  mm.k = as.back();
  mm.n = bs.back();
  if (bs[bs.size() - 2] != mm.k) unsupported(node, "inner dimensions of A and B differ");
  size_t outBatchRank = ys.size() - (aVec ? 0 : 1) - (bVec ? 0 : 1);
  Dims outBatch(ys.begin(), ys.begin() + static_cast<std::ptrdiff_t>(outBatchRank));
  Dims aBatch(as.begin(), as.end() - 2), bBatch(bs.begin(), bs.end() - 2);
  mm.batch = product(outBatch);
  mm.aRow = mm.k, mm.aCol = 1, mm.bRow = mm.n, mm.bCol = 1;
  int64_t aMat = mm.m * mm.k, bMat = mm.k * mm.n;
  mm.aOff = [outBatch, aBatch, aMat](const Expr& b) {
    return flatten(broadcastIndex(unflatten(b, outBatch), aBatch), aBatch) * intImm(aMat);
  };
  mm.bOff = [outBatch, bBatch, bMat](const Expr& b) {
    return flatten(broadcastIndex(unflatten(b, outBatch), bBatch), bBatch) * intImm(bMat);
  };
  mm.outIndex = [outBatch, aVec, bVec](const Expr& b, const Expr& i, const Expr& j) {
    Index idx = unflatten(b, outBatch);
    if (!aVec) idx.push_back(i);
    if (!bVec) idx.push_back(j);
    return idx;
  };
  mm.finalize = [](const Expr& acc, const Index&) { return acc; };
  return emitMatmul(ctx, mm, storeFn);
}

}  // namespace

void addMatmulLowerings(LoweringMap& table) {
  table["Gemm"].emit = emitGemm;
  table["MatMul"].emit = emitMatMul;
  table["MatMul"].symbolicSizes = true;
}

}  // namespace kiln::kernel
