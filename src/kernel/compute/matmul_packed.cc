// kiln.MatMulPacked: A [..., K] times a constant B packed in column panels [N/b, K, b], every
// leading dimension of A a GEMM row. The inner loop is the gemm micro-kernel: a tile of MR rows by
// NV panels accumulated over all of K, A broadcast and B streamed contiguously.
//
// Work: a task is (block of row tiles, group of NV panels); it runs its row tiles one after
// another over the same panels, which stay in cache. Rows past a multiple of MR run as one smaller
// tile; columns past N in the last panel are computed (B holds zeros there) but not stored.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/kernel/tile_model.h"
#include "kiln/kernel/ukernel.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

class PackedMatmul {
 public:
  PackedMatmul(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn)
      : ctx_(ctx), storeFn_(storeFn) {
    av_ = node.inputs[0];
    bv_ = node.inputs[1];
    t_ = node.outputs[0]->type.dtype;
    const Dims& as = av_->type.shape;
    const Dims& bs = bv_->type.shape;
    lead_ = Dims(as.begin(), as.end() - 1);
    k_ = as.back();
    m_ = product(lead_);
    n_ = node.attrs.getInt("n");
    nb_ = bs[0];
    L_ = bs[2];
    if (L_ != ctx.config().target.lanes) {
      unsupported(node, strCat("B is packed in panels of ", L_,
                               " columns; the target's vectors hold ", ctx.config().target.lanes));
    }
    GemmTileChoice tile = chooseGemmTile(ctx.config().target, m_, nb_);
    mr_ = static_cast<int>(ctx.knob("mr", tile.mr, 1, std::clamp<int64_t>(m_, 1, 32)));
    nv_ = static_cast<int>(ctx.knob("nv", tile.nv, 1, std::min<int64_t>(nb_, 8)));
  }

  Stmt emit() {
    if (m_ == 0 || n_ == 0) return seq({});
    int64_t groups = ceilDiv(nb_, nv_);
    int64_t fullTiles = m_ / mr_;
    int64_t tiles = ceilDiv(m_, mr_);
    int64_t tilesPerTask =
        ctx_.knob("tiles_per_task", tiles * groups / 32, 1, std::max<int64_t>(1, tiles));
    int64_t blocks = ceilDiv(tiles, tilesPerTask);
    return loop(ctx_, "task", blocks * groups, ctx_.parallelKind(), [&](const Expr& task) {
      Index d{binary(BinaryOp::kFloorMod, task, intImm(groups)), floorDivBy(task, groups)};
      return bindVars(ctx_, {"g", "blk"}, d, [&](const Index& v) {
        const Expr &g = v[0], &blk = v[1];
        auto body = [&](int nv) {
          Expr first = blk * intImm(tilesPerTask);
          // Full tiles of this block, then the short tile if this block holds it.
          Expr count = max(intImm(0), min(intImm(tilesPerTask), intImm(fullTiles) - first));
          Stmt full = loopRange(ctx_, "tile", first, count, ForKind::kSerial,
                                [&](const Expr& t) { return tile(t * intImm(mr_), mr_, g, nv); });
          int64_t rem = m_ % mr_;
          if (rem == 0) return full;
          Stmt last = tile(intImm(fullTiles * mr_), static_cast<int>(rem), g, nv);
          return seq({full, ifThenElse(compare(CompareOp::kEQ, blk, intImm(blocks - 1)), last)});
        };
        int tail = static_cast<int>(nb_ % nv_);
        if (tail == 0) return body(nv_);
        return ifThenElse(compare(CompareOp::kLT, g, intImm(groups - 1)), body(nv_), body(tail));
      });
    });
  }

 private:
  Index outIndex(const Expr& row, const Expr& col) const {
    Index idx = unflatten(row, lead_);
    idx.push_back(col);
    return idx;
  }

  // Rows [m0, m0 + mr) by panels [g*NV, g*NV + nv).
  Stmt tile(const Expr& m0, int mr, const Expr& g, int nv) {
    Buffer acc = ctx_.localBuffer("acc", t_, {int64_t{mr} * nv * L_});
    Expr lanes = ramp(intImm(0), intImm(1), static_cast<int>(L_));
    std::vector<Stmt> init, out;
    for (int r = 0; r < mr; ++r) {
      for (int v = 0; v < nv; ++v) {
        int64_t at = (int64_t{r} * nv + v) * L_;
        init.push_back(store(acc, intImm(at) + lanes, constant(0, t_)));
        out.push_back(
            storeColumns(acc, at, m0 + intImm(r), (g * intImm(nv_) + intImm(v)) * intImm(L_)));
      }
    }
    ukernel::GemmTile spec;
    spec.mr = mr;
    spec.nv = nv;
    spec.unroll = static_cast<int>(ctx_.knob("unroll", 4, 1, 16));
    spec.aRowStride = k_;
    spec.bVectorStride = k_ * L_;
    spec.loops = {{intImm(k_), 1, L_}};
    ukernel::NameFn names = [this](const std::string& hint) { return ctx_.freshVar(hint)->name; };
    Stmt body = ukernel::gemmTile(
        spec, ctx_.config().target,
        {ctx_.param(av_), ctx_.param(bv_), acc, m0 * intImm(k_), g * intImm(nv_ * k_ * L_)}, names);
    return allocate(acc, seq({seq(init), body, seq(out)}));
  }

  // Stores accumulator vector AT (row ROW, columns COL0..COL0+L) through the epilogue: one vector
  // when all its columns exist, else its columns below N one by one.
  Stmt storeColumns(const Buffer& acc, int64_t at, const Expr& row, const Expr& col0) {
    Expr lanes = ramp(intImm(0), intImm(1), static_cast<int>(L_));
    auto whole = [&] {
      return storeFn_(outIndex(row, col0 + lanes), load(acc, intImm(at) + lanes));
    };
    if (n_ % L_ == 0) return whole();
    std::vector<Stmt> partial;
    for (int64_t l = 0; l < n_ % L_; ++l) {
      partial.push_back(storeFn_(outIndex(row, col0 + intImm(l)), load(acc, intImm(at + l))));
    }
    Expr fits = compare(CompareOp::kLE, col0 + intImm(L_), intImm(n_));
    if (isIntImm(fits)) return fits->intValue != 0 ? whole() : seq(partial);
    return ifThenElse(fits, whole(), seq(partial));
  }

  LowerContext& ctx_;
  const StoreFn& storeFn_;
  const ir::Value *av_, *bv_;
  DataType t_;
  Dims lead_;
  int64_t k_ = 0, m_ = 0, n_ = 0, nb_ = 0, L_ = 1;
  int mr_ = 1, nv_ = 1;
};

}  // namespace

Stmt emitMatMulPacked(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  return PackedMatmul(ctx, node, storeFn).emit();
}

}  // namespace kiln::kernel
