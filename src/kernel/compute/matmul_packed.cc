// kiln.MatMulPacked: A [..., K] times a constant B packed in column panels [N/b, K, b], every
// leading dimension of A a GEMM row. The inner loop is the gemm micro-kernel: a tile of MR rows by
// NV panels accumulated over all of K, A broadcast and B streamed contiguously.
//
// Work: a task is (block of row tiles, group of NV panels); it runs its row tiles one after
// another over the same panels, which stay in cache. When those panels over all of K would not
// fit the L2 cache, K is blocked: each block of K passes over all the task's row tiles. Rows past a
// multiple of MR run as one smaller tile; columns past N in the last panel are computed (B holds
// zeros there) but not stored.
//
// Rows sized in symbols (a sequence length): the tasks are laid out for the rows at the bounds,
// panel group major, so a run of few rows still spreads its panels over the threads; a task's
// full tiles stop at this run's rows, and the short tile is one of MR - 1 specialised tiles. The
// micro-kernel and B's panels are those of the static case.
#include <algorithm>
#include <limits>

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
    n_ = node.attrs.getInt("n");
    symbolic_ = ctx.symbolic();
    if (symbolic_) {
      if (k_ < 0)
        unsupported(node, "its reduction length K is sized in symbols; it must be static");
      Index extents = ctx.extentsOf(av_);
      leadX_ = Index(extents.begin(), extents.end() - 1);
      rows_ = productOf(leadX_);
      m_ = n_ > 0 ? ctx.capacityNumel(node.outputs[0]) / n_ : 0;  // the rows at the bounds
    } else {
      m_ = product(lead_);
      rows_ = intImm(m_);
    }
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
    int64_t tiles = ceilDiv(m_, mr_);
    // K is blocked when a tile's panels over all of K would crowd the L2 cache: each block of K
    // then passes over all the task's row tiles, whose partial sums wait in a local buffer.
    int64_t panelBytes = k_ * nv_ * L_ * 4;
    int64_t kDefault =
        panelBytes <= ctx_.config().target.l2Bytes / 2
            ? k_
            : std::max<int64_t>(64, ctx_.config().target.l2Bytes / 4 / (nv_ * L_ * 4) / 4 * 4);
    kBlock_ = ctx_.knob("k_block", kDefault, 1, k_);
    int64_t tileBytes = int64_t{mr_} * nv_ * L_ * 4;
    int64_t maxTiles = kBlock_ < k_ ? std::max<int64_t>(1, kMaxLocalBufferBytes / 2 / tileBytes - 1)
                                    : std::numeric_limits<int64_t>::max();
    int64_t tilesPerTask = ctx_.knob("tiles_per_task", tiles * groups / 32, 1,
                                     std::clamp<int64_t>(tiles, 1, maxTiles));
    int64_t blocks = ceilDiv(tiles, tilesPerTask);
    Dims tasks = symbolic_ ? Dims{groups, blocks} : Dims{blocks, groups};
    std::vector<std::string> names =
        symbolic_ ? std::vector<std::string>{"g", "blk"} : std::vector<std::string>{"blk", "g"};
    return loop(ctx_, "task", blocks * groups, ctx_.parallelKind(), [&](const Expr& task) {
      return bindVars(ctx_, names, unflatten(task, tasks), [&](const Index& v) {
        const Expr &blk = v[symbolic_ ? 1 : 0], &g = v[symbolic_ ? 0 : 1];
        auto body = [&](int nv) {
          if (kBlock_ < k_) return blockedK(g, blk, nv, tilesPerTask, blocks);
          return rowTiles(blk, tilesPerTask, blocks,
                          [&](const Expr& m0, int mr, const Expr&) { return tile(m0, mr, g, nv); });
        };
        int tail = static_cast<int>(nb_ % nv_);
        if (tail == 0) return body(nv_);
        return ifThenElse(compare(CompareOp::kLT, g, intImm(groups - 1)), body(nv_), body(tail));
      });
    });
  }

 private:
  Index outIndex(const Expr& row, const Expr& col) const {
    Index idx = symbolic_ ? unflatten(row, leadX_) : unflatten(row, lead_);
    idx.push_back(col);
    return idx;
  }

  // The row tiles of block BLK: up to this run's rows when they are sized in symbols.
  Stmt rowTiles(const Expr& blk, int64_t perBlock, int64_t blocks, const RowTileFn& body) {
    if (symbolic_) return rowTilesOfBlock(ctx_, blk, perBlock, rows_, mr_, body);
    return rowTilesOfBlock(ctx_, blk, perBlock, blocks, m_, mr_, body);
  }

  // The row tiles of block BLK (of TILES_PER_TASK tiles) for panel group G, K in blocks of
  // kBlock_: cbuf holds each tile's partial sums between K blocks (slot TILES_PER_TASK holds the
  // short last tile), and the epilogue runs once all of K is summed.
  Stmt blockedK(const Expr& g, const Expr& blk, int nv, int64_t tilesPerTask, int64_t blocks) {
    int64_t slot = int64_t{mr_} * nv * L_;
    Buffer cbuf = ctx_.localBuffer("cbuf", t_, {(tilesPerTask + 1) * slot});
    auto eachTile = [&](const std::function<Stmt(const Expr& m0, int mr, const Expr& at)>& f) {
      return rowTiles(blk, tilesPerTask, blocks, [&](const Expr& m0, int mr, const Expr& s) {
        return f(m0, mr, s * intImm(slot));
      });
    };
    // Zeroes VECTORS vectors of cbuf from vector FIRST.
    auto zeroVectors = [&](const Expr& first, const Expr& vectors) {
      return loopRange(ctx_, "z", first, vectors, ForKind::kSerial, [&](const Expr& i) {
        return store(cbuf, i * intImm(L_) + ramp(intImm(0), intImm(1), static_cast<int>(L_)),
                     constant(0, t_));
      });
    };
    Stmt zero = zeroVectors(intImm(0), intImm((tilesPerTask + 1) * slot / L_));
    if (symbolic_) {  // only the slots of this run's tiles: the full ones, then the short one's
      Expr full = max(intImm(0), min(intImm(tilesPerTask),
                                     floorDivBy(rows_, mr_) - blk * intImm(tilesPerTask)));
      zero = seq({zeroVectors(intImm(0), full * intImm(slot / L_)),
                  zeroVectors(intImm(tilesPerTask * slot / L_), intImm(slot / L_))});
    }
    int64_t chunks = ceilDiv(k_, kBlock_);
    Stmt sums = loop(ctx_, "kb", chunks, ForKind::kSerial, [&](const Expr& c) {
      Expr k0 = c * intImm(kBlock_);
      Expr extent = k_ % kBlock_ == 0 ? intImm(kBlock_) : min(intImm(kBlock_), intImm(k_) - k0);
      return eachTile([&](const Expr& m0, int mr, const Expr& at) {
        return tile(m0, mr, g, nv, TileK{k0, extent, cbuf, at});
      });
    });
    Stmt out = eachTile([&](const Expr& m0, int mr, const Expr& at) {
      return tile(m0, mr, g, nv, TileK{intImm(0), intImm(0), cbuf, at});
    });
    return allocate(cbuf, seq({zero, sums, out}));
  }

  // Which K a tile sums: all of it (no cbuf), or [k0, k0 + extent) from and back into cbuf at
  // offset AT; an extent of 0 only runs the epilogue on cbuf's sums.
  struct TileK {
    Expr k0, extent;
    Buffer cbuf;
    Expr at;
  };

  // Rows [m0, m0 + mr) by panels [g*NV, g*NV + nv).
  Stmt tile(const Expr& m0, int mr, const Expr& g, int nv, const TileK& part = {}) {
    Buffer acc = ctx_.localBuffer("acc", t_, {int64_t{mr} * nv * L_});
    Expr lanes = ramp(intImm(0), intImm(1), static_cast<int>(L_));
    std::vector<Stmt> init, out;
    bool blocked = part.cbuf != nullptr;
    bool epilogue = !blocked || isIntImm(part.extent, 0);
    for (int r = 0; r < mr; ++r) {
      for (int v = 0; v < nv; ++v) {
        int64_t at = (int64_t{r} * nv + v) * L_;
        Expr saved = blocked ? part.at + intImm(at) + lanes : Expr();
        init.push_back(
            store(acc, intImm(at) + lanes, blocked ? load(part.cbuf, saved) : constant(0, t_)));
        if (epilogue) {
          out.push_back(
              storeColumns(acc, at, m0 + intImm(r), (g * intImm(nv_) + intImm(v)) * intImm(L_)));
        } else {
          out.push_back(store(part.cbuf, saved, load(acc, intImm(at) + lanes)));
        }
      }
    }
    if (blocked && epilogue) return allocate(acc, seq({seq(init), seq(out)}));
    ukernel::GemmTile spec;
    spec.mr = mr;
    spec.nv = nv;
    spec.unroll = static_cast<int>(ctx_.knob("unroll", 4, 1, 16));
    spec.aRowStride = k_;
    spec.bVectorStride = k_ * L_;
    Expr k0 = blocked ? part.k0 : intImm(0);
    spec.loops = {{blocked ? part.extent : intImm(k_), 1, L_}};
    Stmt body = ukernel::gemmTile(spec, ctx_.config().target,
                                  {ctx_.param(av_), ctx_.param(bv_), acc, m0 * intImm(k_) + k0,
                                   g * intImm(nv_ * k_ * L_) + k0 * intImm(L_)},
                                  ctx_.names());
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
    // A vector that lies past N is not even built: its store would be malformed there.
    if (isIntImm(fits)) return fits->intValue != 0 ? whole() : seq(partial);
    return ifThenElse(fits, whole(), seq(partial));
  }

  LowerContext& ctx_;
  const StoreFn& storeFn_;
  const ir::Value *av_, *bv_;
  DataType t_;
  Dims lead_;
  // Sized in symbols: the leading dims' and the rows' expressions; m_ is then the rows at the
  // bounds.
  bool symbolic_ = false;
  Index leadX_;
  Expr rows_;
  int64_t k_ = 0, m_ = 0, n_ = 0, nb_ = 0, L_ = 1;
  int mr_ = 1, nv_ = 1;
  int64_t kBlock_ = 0;
};

}  // namespace

Stmt emitMatMulPacked(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  return PackedMatmul(ctx, node, storeFn).emit();
}

}  // namespace kiln::kernel
