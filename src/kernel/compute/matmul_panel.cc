// MatMul and Gemm whose B is computed at run time (attention's Q·K^T and weights·V), on the gemm
// micro-kernel. B is not packed at compile time, so each task first copies its panel of B (all of
// K by NV vectors of columns, zero past N) into a local buffer in the order the micro-kernel
// reads, whatever B's strides (transposed or not); the task's row tiles then reuse the panel.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/kernel/tile_model.h"
#include "kiln/kernel/ukernel.h"
#include "matmul_shape.h"

namespace kiln::kernel {
namespace {

class PanelMatmul {
 public:
  PanelMatmul(LowerContext& ctx, const Matmul& mm, const StoreFn& storeFn, int mr, int nv)
      : ctx_(ctx), mm_(mm), storeFn_(storeFn), mr_(mr), nv_(nv) {
    L_ = ctx.config().target.lanes;
    nb_ = ceilDiv(mm.n, L_);
  }

  Stmt emit() {
    int64_t groups = ceilDiv(nb_, nv_), tiles = ceilDiv(mm_.m, mr_);
    int64_t perTask = ctx_.knob("tiles_per_task", mm_.batch * tiles * groups / 32, 1, tiles);
    int64_t blocks = ceilDiv(tiles, perTask);
    return loop(
        ctx_, "task", mm_.batch * blocks * groups, ctx_.parallelKind(), [&](const Expr& task) {
          Index d = unflatten(task, {mm_.batch, blocks, groups});
          return bindVars(ctx_, {"batch", "blk", "g"}, d, [&](const Index& v) {
            const Expr &b = v[0], &blk = v[1], &g = v[2];
            return bindVars(ctx_, {"a_off", "b_off", "j0"},
                            {mm_.aOff(b), mm_.bOff(b), g * intImm(nv_ * L_)}, [&](const Index& o) {
                              Buffer panel = ctx_.localBuffer("panel", mm_.t, {mm_.k, nv_ * L_});
                              Stmt rows =
                                  rowTilesOfBlock(ctx_, blk, perTask, blocks, mm_.m, mr_,
                                                  [&](const Expr& i0, int mr, const Expr&) {
                                                    return tile(panel, b, o[0], o[2], i0, mr);
                                                  });
                              return allocate(panel, seq({fillPanel(panel, o[1], o[2]), rows}));
                            });
          });
        });
  }

 private:
  // panel[kk][c] = B(kk, j0 + c), zero past N.
  Stmt fillPanel(const Buffer& panel, const Expr& bOff, const Expr& j0) {
    int64_t width = nv_ * L_;
    return loop(ctx_, "kk", mm_.k, ForKind::kSerial, [&](const Expr& kk) {
      return loop(ctx_, "c", width, ctx_.vectorKind(), [&](const Expr& c) {
        Expr j = j0 + c;
        Expr at = bOff + kk * intImm(mm_.bRow) + min(j, intImm(mm_.n - 1)) * intImm(mm_.bCol);
        Expr v = ctx_.readFlat(mm_.b, at);
        if (mm_.n % width != 0)
          v = select(compare(CompareOp::kLT, j, intImm(mm_.n)), v, constant(0, mm_.t));
        return store(panel, kk * intImm(width) + c, v);
      });
    });
  }

  Stmt tile(const Buffer& panel, const Expr& b, const Expr& aOff, const Expr& j0, const Expr& i0,
            int mr) {
    Buffer acc = ctx_.localBuffer("acc", mm_.t, {int64_t{mr} * nv_ * L_});
    Expr lanes = ramp(intImm(0), intImm(1), static_cast<int>(L_));
    std::vector<Stmt> init, out;
    for (int r = 0; r < mr; ++r) {
      for (int v = 0; v < nv_; ++v) {
        int64_t at = (int64_t{r} * nv_ + v) * L_;
        init.push_back(store(acc, intImm(at) + lanes, constant(0, mm_.t)));
        out.push_back(storeColumns(acc, at, b, i0 + intImm(r), j0 + intImm(v * L_)));
      }
    }
    ukernel::GemmTile spec;
    spec.mr = mr;
    spec.nv = nv_;
    spec.unroll = static_cast<int>(ctx_.knob("unroll", 4, 1, 16));
    spec.aRowStride = mm_.aRow;
    spec.bVectorStride = L_;
    spec.loops = {{intImm(mm_.k), mm_.aCol, nv_ * L_}};
    Stmt body = ukernel::gemmTile(
        spec, ctx_.config().target,
        {ctx_.param(mm_.a), panel, acc, aOff + i0 * intImm(mm_.aRow), intImm(0)}, ctx_.names());
    return allocate(acc, seq({seq(init), body, seq(out)}));
  }

  // Accumulator vector AT (row I, columns J..J+L, J a multiple of L) through the epilogue: whole
  // when all its columns exist, lane by lane when it straddles N, not at all past N (the last
  // group's panel may reach beyond N).
  Stmt storeColumns(const Buffer& acc, int64_t at, const Expr& b, const Expr& i, const Expr& j) {
    Expr lanes = ramp(intImm(0), intImm(1), static_cast<int>(L_));
    auto one = [&](const Expr& col, const Expr& value) {
      Index idx = mm_.outIndex(b, i, col);
      return storeFn_(idx, mm_.finalize(value, idx));
    };
    Stmt whole = one(j + lanes, load(acc, intImm(at) + lanes));
    Stmt partial;
    if (mm_.n % L_ != 0) {
      std::vector<Stmt> lanesBelowN;
      for (int64_t l = 0; l < mm_.n % L_; ++l) {
        lanesBelowN.push_back(one(j + intImm(l), load(acc, intImm(at + l))));
      }
      partial = ifThenElse(compare(CompareOp::kEQ, j, intImm(mm_.n / L_ * L_)), seq(lanesBelowN));
    }
    Expr fits = compare(CompareOp::kLE, j + intImm(L_), intImm(mm_.n));
    return ifThenElse(fits, whole, partial);
  }

  LowerContext& ctx_;
  const Matmul& mm_;
  const StoreFn& storeFn_;
  int mr_, nv_;
  int64_t L_ = 1, nb_ = 1;
};

}  // namespace

Stmt emitPanelMatmul(LowerContext& ctx, const Matmul& mm, const StoreFn& storeFn) {
  const TargetModel& target = ctx.config().target;
  // Below one vector of columns (and for a 1-D B, whose output has no column dim) the plain
  // schedules do as well.
  if (mm.t != DataType::float32() || target.lanes < 2 || mm.k == 0 || mm.n < target.lanes) {
    return nullptr;
  }
  // The panel must leave room for the accumulators in the local-buffer budget.
  int64_t nb = ceilDiv(mm.n, target.lanes);
  auto fits = [&](int64_t v) { return mm.k * v * target.lanes * 4 <= kMaxLocalBufferBytes / 2; };
  if (!fits(1)) return nullptr;
  int64_t nvHi = std::min<int64_t>(nb, 8);
  while (!fits(nvHi)) --nvHi;
  GemmTileChoice tile = chooseGemmTile(target, mm.m, nb);
  int mr = static_cast<int>(ctx.knob("mr", tile.mr, 1, std::clamp<int64_t>(mm.m, 1, 32)));
  int nv = static_cast<int>(ctx.knob("nv", tile.nv, 1, nvHi));
  return PanelMatmul(ctx, mm, storeFn, mr, nv).emit();
}

}  // namespace kiln::kernel
