// kiln.ConvBlocked, not depthwise: a direct convolution into NCHW[b]c whose inner loop is the gemm
// micro-kernel. A tile is MR output pixels of one row by NV output-channel blocks; its reduction
// runs over input-channel blocks, kernel rows and columns and the channels of a block, with the
// pixel's input value broadcast and a packed weight vector per output block.
//
// Work: a task is (image, group of NV output blocks, block of rows), so each thread keeps its own
// weights hot and every task covers whole rows. Rows near the top and bottom clip their kernel
// rows; with horizontal padding, each row's input window is first copied into a zero-padded local
// buffer (about 1% of the tile work), so every tile reads without bounds checks. A 1x1, stride-1,
// unpadded conv runs its pixels as one long row. A grouped conv (whole blocks per group) reduces
// over its group's input blocks only.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "conv_blocked_shape.h"
#include "kiln/kernel/tile_model.h"
#include "kiln/kernel/ukernel.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

// What every tile of one output row shares: image, first output block, row, kernel rows.
struct RowCtx {
  Expr n, ocb0, oh, khLo, nKh;
  Expr col0;  // the row's first output column (flat convs: its first pixel)
};

class ConvBlockedKernel {
 public:
  ConvBlockedKernel(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn)
      : ctx_(ctx), node_(node), storeFn_(storeFn), s_(convBlockedShape(node)) {
    xv_ = node.inputs[0];
    wv_ = node.inputs[1];
    bv_ = hasInput(node, 2) ? node.inputs[2] : nullptr;
    t_ = node.outputs[0]->type.dtype;
    L_ = s_.block;
    flat_ = s_.kh == 1 && s_.kw == 1 && s_.sy == 1 && s_.sx == 1 &&
            s_.pt + s_.pb + s_.pl + s_.pr == 0 && !s_.plainInput;
    rows_ = s_.oh;
    cols_ = flat_ ? s_.oh * s_.ow : s_.ow;
    convGroups_ = node.attrs.getInt("group", 1);
    padded_ = s_.pl + s_.pr > 0;
    chooseTile();
    if (flat_) splitPixels();
    lastCols_ = cols_;
    if (flat_) lastCols_ = s_.oh * s_.ow - (rows_ - 1) * cols_;
    planSegments();
  }

  Stmt emit() {
    int64_t groups = ceilDiv(s_.ocb, nv_);
    int64_t perImage = groups * rows_;
    // About 32 tasks when the problem allows: enough for the pool to balance, few enough that a
    // task reuses its weights over several rows.
    int64_t rowsPerTask = ctx_.knob("rows_per_task", s_.n * perImage / 32, 1, rows_);
    int64_t rowBlocks = ceilDiv(rows_, rowsPerTask);
    int64_t tasks = s_.n * groups * rowBlocks;
    return loop(ctx_, "task", tasks, ctx_.parallelKind(), [&](const Expr& task) {
      Index d = unflatten(task, {s_.n, groups, rowBlocks});
      return bindVars(ctx_, {"n", "g", "rb"}, d, [&](const Index& v) {
        const Expr &n = v[0], &g = v[1], &rb = v[2];
        int tail = static_cast<int>(s_.ocb % nv_);
        auto body = [&](int nv) { return groupRows(n, g, rb, rowsPerTask, nv); };
        Stmt s = tail == 0 ? body(nv_)
                           : ifThenElse(compare(CompareOp::kLT, g, intImm(groups - 1)), body(nv_),
                                        body(tail));
        return xpad_ != nullptr ? allocate(xpad_, s) : s;
      });
    });
  }

 private:
  // The register tile, MR pixels by NV output blocks: the analytical default or the schedule's
  // knobs, within what the lowering can run. A grouped conv's tile must not straddle two groups,
  // so NV divides a group's output blocks; with horizontal padding, one tile's input window over
  // one input channel group must fit the local-buffer budget.
  void chooseTile() {
    int64_t groupBlocks = s_.ocb / convGroups_;
    GemmTileChoice tile = chooseGemmTile(ctx_.config().target, cols_, s_.ocb);
    int nvHi = static_cast<int>(std::min<int64_t>(groupBlocks, 8)), nvDefault = tile.nv;
    if (convGroups_ > 1) {
      while (groupBlocks % nvDefault != 0) --nvDefault;
    }
    int mrHi = static_cast<int>(std::min<int64_t>(cols_, 32));
    while (padded_ && mrHi > 1 && !windowFits(mrHi, 1, mrHi, nvHi)) --mrHi;
    mr_ = static_cast<int>(ctx_.knob("mr", tile.mr, 1, mrHi));
    nv_ = static_cast<int>(ctx_.knob("nv", nvDefault, 1, nvHi));
    if (groupBlocks % nv_ != 0 && convGroups_ > 1) {
      throw Error(strCat("schedule: knob 'nv' of workload ", ctx_.workload(), " is ", nv_,
                         "; expected a divisor of ", groupBlocks,
                         ", the output blocks of a group"));
    }
  }

  // Whether the input window of WIDTH output columns over GROUPS input channel groups fits the
  // local-buffer budget beside an MR x NV tile's accumulators.
  bool windowFits(int64_t width, int64_t groups, int mr, int nv) const {
    int64_t perGroupColumn = s_.kh * inBlock() * static_cast<int64_t>(t_.bytes());
    int64_t accBytes = int64_t{mr} * nv * L_ * static_cast<int64_t>(t_.bytes()) * 2;
    int64_t budget = std::min(kMaxLocalBufferBytes, kMaxLocalBytesPerKernel - accBytes);
    return windowColumns(width) * groups * perGroupColumn <= budget;
  }

  // A flat conv's pixels as rows of whole tiles, enough of them for about 32 tasks; the last row
  // takes what is left.
  void splitPixels() {
    int64_t pixels = cols_, groups = ceilDiv(s_.ocb, nv_);
    int64_t wantRows = std::max<int64_t>(1, ceilDiv(32, s_.n * groups));
    cols_ = std::max<int64_t>(mr_, ceilDiv(ceilDiv(pixels, wantRows), mr_) * mr_);
    rows_ = ceilDiv(pixels, cols_);
  }

  // The rows of one task for output blocks [g*NV, g*NV + nv). A short last row (a flat conv's
  // leftover pixels) is emitted on its own, by the task that holds it.
  Stmt groupRows(const Expr& n, const Expr& g, const Expr& rb, int64_t rowsPerTask, int nv) {
    Expr ocb0 = g * intImm(nv_);
    Expr first = rb * intImm(rowsPerTask);
    int64_t regular = lastCols_ == cols_ ? rows_ : rows_ - 1;
    Expr count = regular % rowsPerTask == 0 && regular == rows_
                     ? intImm(rowsPerTask)
                     : max(intImm(0), min(intImm(rowsPerTask), intImm(regular) - first));
    Stmt rows = loopRange(ctx_, "oh", first, count, ForKind::kSerial,
                          [&](const Expr& oh) { return row(n, ocb0, oh, nv, cols_); });
    if (regular == rows_) return rows;
    int64_t lastBlock = (rows_ - 1) / rowsPerTask;
    Stmt last = row(n, ocb0, intImm(rows_ - 1), nv, lastCols_);
    return seq({rows, ifThenElse(compare(CompareOp::kEQ, rb, intImm(lastBlock)), last)});
  }

  // The kernel rows output row OH reads inside the input: [khLo, khLo + nKh).
  Stmt withKernelRows(const Expr& oh, const std::function<Stmt(const Expr&, const Expr&)>& body) {
    if (flat_) return body(intImm(0), intImm(s_.kh));
    auto [first, count] = s_.kernelRows(oh);
    return bindVars(ctx_, {"kh_lo", "kh_n"}, {first, count},
                    [&](const Index& v) { return body(v[0], v[1]); });
  }

  // Output row OH (a flat conv: pixels [OH*cols, OH*cols + rowCols)) in segments of tiles.
  Stmt row(const Expr& n, const Expr& ocb0, const Expr& oh, int nv, int64_t rowCols) {
    return withKernelRows(oh, [&](const Expr& khLo, const Expr& nKh) {
      RowCtx rc{n, ocb0, oh, khLo, nKh, flat_ ? oh * intImm(cols_) : intImm(0)};
      std::vector<Stmt> segs;
      for (int64_t s0 = 0; s0 < rowCols; s0 += segment_) {
        int64_t width = std::min(segment_, rowCols - s0);
        std::vector<Stmt> parts;
        // With one chunk the window is filled once for all tiles of the segment; with several,
        // each tile is its own segment and fills each chunk before reducing over it.
        if (xpad_ != nullptr && chunks_ == 1) parts.push_back(fillWindow(rc, s0, width, intImm(0)));
        int64_t full = width / mr_, rem = width % mr_;
        parts.push_back(loop(ctx_, "tile", full, ForKind::kSerial, [&](const Expr& t) {
          return tile(rc, s0, width, rc.col0 + intImm(s0) + t * intImm(mr_), mr_, nv);
        }));
        if (rem > 0) {
          parts.push_back(
              tile(rc, s0, width, rc.col0 + intImm(s0 + full * mr_), static_cast<int>(rem), nv));
        }
        segs.push_back(seq(parts));
      }
      return seq(segs);
    });
  }

  // Channels per A element step: 1 for a plain input, the block for a blocked one.
  int64_t inBlock() const { return s_.plainInput ? 1 : L_; }
  // Input channel groups the reduction runs over (blocks, or channels for a plain input; a
  // grouped conv's own group's blocks).
  int64_t inGroups() const { return s_.plainInput ? s_.ic : s_.icb / convGroups_; }
  // Input channel groups of the whole input tensor.
  int64_t inGroupsTotal() const { return s_.plainInput ? s_.ic : s_.icb; }
  // The first input channel group of the conv group that output block OCB0 belongs to.
  Expr inGroupBase(const Expr& ocb0) const {
    if (convGroups_ == 1) return intImm(0);
    return floorDivBy(ocb0, s_.ocb / convGroups_) * intImm(inGroups());
  }

  // Copies input rows [khLo, khLo+nKh) of the window of output columns [s0, s0+width), for the
  // input channel groups of chunk CHUNK, into xpad[group][k][column][inBlock], zero outside the
  // input.
  Stmt fillWindow(const RowCtx& rc, int64_t s0, int64_t width, const Expr& chunk) {
    int64_t cols = windowColumns(width), e = inBlock();
    Expr top = rc.oh * intImm(s_.sy) - intImm(s_.pt);
    Expr first = chunk * intImm(chunkGroups_);
    return loopRange(
        ctx_, "ig", intImm(0), chunkExtent(first), ForKind::kSerial, [&](const Expr& ig) {
          return loopRange(ctx_, "k", intImm(0), rc.nKh, ForKind::kSerial, [&](const Expr& k) {
            Expr ih = top + (rc.khLo + k) * intImm(s_.dy);
            Expr src = ((rc.n * intImm(inGroupsTotal()) + inGroupBase(rc.ocb0) + first + ig) *
                            intImm(s_.h) +
                        ih) *
                       intImm(s_.w * e);
            Expr dst = (ig * intImm(s_.kh) + k) * intImm(window_ * e);
            return bindVars(ctx_, {"src", "dst"}, {src, dst},
                            [&](const Index& p) { return copyRow(p[0], p[1], s0, cols, e); });
          });
        });
  }

  // Window row at DST: window column c holds input column c - shift of the row at SRC, zero
  // where that lies outside the input: zeros, a plain copy, zeros.
  Stmt copyRow(const Expr& src, const Expr& dst, int64_t s0, int64_t cols, int64_t e) {
    int64_t shift = s_.pl - s0 * s_.sx;
    int64_t lo = std::clamp<int64_t>(shift, 0, cols);
    int64_t hi = std::clamp<int64_t>(shift + s_.w, lo, cols);
    Expr lanes = e == 1 ? Expr() : ramp(intImm(0), intImm(1), static_cast<int>(e));
    auto at = [&](const Expr& base, const Expr& col) {
      return lanes ? base + col * intImm(e) + lanes : base + col;
    };
    ForKind kind = e == 1 ? ctx_.vectorKind() : ForKind::kSerial;
    auto zeros = [&](int64_t from, int64_t to) {
      return loopRange(ctx_, "c", intImm(from), intImm(to - from), kind,
                       [&](const Expr& c) { return store(xpad_, at(dst, c), constant(0, t_)); });
    };
    Stmt copy = loopRange(ctx_, "c", intImm(lo), intImm(hi - lo), kind, [&](const Expr& c) {
      return store(xpad_, at(dst, c), ctx_.readFlat(xv_, at(src, c - intImm(shift))));
    });
    return seq({zeros(0, lo), copy, zeros(hi, cols)});
  }

  // Input channel groups in the chunk starting at group FIRST.
  Expr chunkExtent(const Expr& first) const {
    if (chunks_ == 1) return intImm(inGroups());
    return min(intImm(chunkGroups_), intImm(inGroups()) - first);
  }

  int64_t windowColumns(int64_t width) const {
    return (width - 1) * s_.sx + (s_.kw - 1) * s_.dx + 1;
  }

  // Segments of columns whose input windows fit the local-buffer budget (usually one per row);
  // when even one tile's window over all input channels does not fit, the reduction is split
  // into chunks of input channel groups that do.
  void planSegments() {
    segment_ = cols_;
    chunkGroups_ = inGroups();
    chunks_ = 1;
    if (!padded_) return;
    auto fits = [&](int64_t width, int64_t groups) { return windowFits(width, groups, mr_, nv_); };
    while (segment_ > mr_ && !fits(segment_, chunkGroups_)) {
      segment_ = std::max<int64_t>(mr_, (segment_ / 2 + mr_ - 1) / mr_ * mr_);
    }
    if (!fits(segment_, chunkGroups_)) {
      if (!fits(mr_, 1)) {
        unsupported(node_, strCat("one kernel row of one input channel group spans ",
                                  windowColumns(1) * s_.kh * inBlock() * t_.bytes(),
                                  " bytes, more than the local buffer budget"));
      }
      segment_ = mr_;
      chunkGroups_ = 1;
      while (chunkGroups_ < inGroups() && fits(mr_, chunkGroups_ + 1)) ++chunkGroups_;
      chunks_ = ceilDiv(inGroups(), chunkGroups_);
    }
    window_ = windowColumns(segment_);
    xpad_ = ctx_.localBuffer("xpad", t_, {chunkGroups_, s_.kh, window_, inBlock()});
  }

  // One MR x NV tile at output columns [ow0, ow0 + mr) of the row, in the segment of WIDTH columns
  // starting at S0.
  Stmt tile(const RowCtx& rc, int64_t s0, int64_t width, const Expr& ow0, int mr, int nv) {
    const Expr &n = rc.n, &ocb0 = rc.ocb0, &oh = rc.oh, &khLo = rc.khLo, &nKh = rc.nKh;
    int64_t e = inBlock();
    Buffer acc = ctx_.localBuffer("acc", t_, {int64_t{mr} * nv * L_});
    Expr lanes = ramp(intImm(0), intImm(1), static_cast<int>(L_));
    auto accAt = [&](int r, int v) { return intImm((int64_t{r} * nv + v) * L_) + lanes; };
    std::vector<Stmt> init, out;
    for (int r = 0; r < mr; ++r) {
      for (int v = 0; v < nv; ++v) {
        Expr ocb = ocb0 + intImm(v);
        Expr b = bv_ != nullptr ? ctx_.readFlat(bv_, ocb * intImm(L_) + lanes) : constant(0, t_);
        init.push_back(store(acc, accAt(r, v), b));
        Expr col = ow0 + intImm(r);
        Index idx = flat_ ? Index{n, ocb, floorDivBy(col, s_.ow),
                                  binary(BinaryOp::kFloorMod, col, intImm(s_.ow)), lanes}
                          : Index{n, ocb, oh, col, lanes};
        out.push_back(storeFn_(idx, load(acc, accAt(r, v))));
      }
    }
    ukernel::GemmTile spec;
    spec.mr = mr;
    spec.nv = nv;
    spec.aRowStride = s_.sx * e;
    int64_t wPerBlock = inGroups() * s_.kh * s_.kw * (s_.plainInput ? L_ : L_ * L_);
    spec.bVectorStride = wPerBlock;
    // Packed weights: [OC/b][group][KH][KW]([b in])[b out]; one kernel tap is wKw elements.
    int64_t wKw = s_.plainInput ? L_ : L_ * L_;
    int64_t wKh = s_.kw * wKw, wIg = s_.kh * wKh;
    Expr aBase, bBase = ocb0 * intImm(wPerBlock) + khLo * intImm(wKh);
    Buffer a;
    int64_t aIg, aKh;
    if (xpad_ != nullptr) {
      a = xpad_;
      aIg = s_.kh * window_ * e;
      aKh = window_ * e;
      aBase = (ow0 - intImm(s0)) * intImm(s_.sx * e);
    } else {
      a = ctx_.param(xv_);
      aIg = s_.h * s_.w * e;
      aKh = s_.dy * s_.w * e;
      Expr ih0 = oh * intImm(s_.sy) - intImm(s_.pt) + khLo * intImm(s_.dy);
      Expr first = n * intImm(inGroupsTotal()) + inGroupBase(ocb0);
      aBase = (first * intImm(s_.h) + ih0) * intImm(s_.w * e) + ow0 * intImm(s_.sx * e);
      if (flat_) aBase = first * intImm(s_.h * s_.w * e) + ow0 * intImm(e);
    }
    spec.unroll = static_cast<int>(ctx_.knob("unroll", s_.plainInput ? s_.kw : 4, 1, 16));
    auto reduce = [&](const Expr& chunk) {
      Expr first = chunk * intImm(chunkGroups_);
      ukernel::GemmTile c = spec;
      c.loops = {{chunkExtent(first), aIg, wIg}, {nKh, aKh, wKh}, {intImm(s_.kw), s_.dx * e, wKw}};
      if (!s_.plainInput) c.loops.push_back({intImm(L_), 1, L_});
      Expr aAt = xpad_ != nullptr ? aBase : aBase + first * intImm(aIg);
      return ukernel::gemmTile(c, ctx_.config().target,
                               {a, ctx_.param(wv_), acc, aAt, bBase + first * intImm(wIg)},
                               ctx_.names());
    };
    Stmt body = chunks_ == 1 ? reduce(intImm(0))
                             : loop(ctx_, "chunk", chunks_, ForKind::kSerial, [&](const Expr& c) {
                                 return seq({fillWindow(rc, s0, width, c), reduce(c)});
                               });
    return allocate(acc, seq({seq(init), body, seq(out)}));
  }

  LowerContext& ctx_;
  const ir::Node& node_;
  const StoreFn& storeFn_;
  ConvBlockedShape s_;
  const ir::Value *xv_, *wv_, *bv_;
  DataType t_;
  int64_t L_;
  bool flat_, padded_;
  int64_t rows_, cols_, lastCols_ = 0;
  int mr_, nv_;
  int64_t segment_ = 0, window_ = 0;
  int64_t chunkGroups_ = 1, chunks_ = 1;
  int64_t convGroups_ = 1;
  Buffer xpad_;
};

}  // namespace

Stmt emitConvBlocked(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  int64_t group = node.attrs.getInt("group", 1);
  if (group != 1 && group == node.attrs.getInt("in_channels", 0) &&
      group == node.attrs.getInt("channels", 0)) {
    return emitDepthwiseBlocked(ctx, node, storeFn);
  }
  return ConvBlockedKernel(ctx, node, storeFn).emit();
}

}  // namespace kiln::kernel
