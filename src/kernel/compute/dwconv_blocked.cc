// kiln.ConvBlocked, depthwise: channels in the vector lanes, the dwconv micro-kernel over MR
// pixels of a row. A depthwise conv does little work per input element, so nothing is copied:
// rows near the top and bottom clip their kernel rows, interior pixels (whose taps all lie inside
// the input) run in MR-pixel tiles, and the few edge pixels each run alone with their kernel
// columns clipped.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "conv_blocked_shape.h"
#include "kiln/kernel/tile_model.h"
#include "kiln/kernel/ukernel.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

class DepthwiseKernel {
 public:
  DepthwiseKernel(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn)
      : ctx_(ctx), storeFn_(storeFn), s_(convBlockedShape(node)) {
    xv_ = node.inputs[0];
    wv_ = node.inputs[1];
    bv_ = hasInput(node, 2) ? node.inputs[2] : nullptr;
    t_ = node.outputs[0]->type.dtype;
    L_ = s_.block;
    // Interior columns: every tap inside the input.
    first_ = std::min(ceilDiv(s_.pl, s_.sx), s_.ow);
    int64_t last = s_.w - 1 + s_.pl - (s_.kw - 1) * s_.dx;
    end_ = std::clamp<int64_t>(last < 0 ? 0 : last / s_.sx + 1, first_, s_.ow);
    mr_ = static_cast<int>(
        ctx.knob("mr", chooseDwconvRows(ctx.config().target, end_ - first_, s_.kw, s_.sx), 1, 32));
  }

  Stmt emit() {
    int64_t rowsPerTask = ctx_.knob("rows_per_task", s_.n * s_.ocb * s_.oh / 32, 1, s_.oh);
    int64_t rowBlocks = ceilDiv(s_.oh, rowsPerTask);
    return loop(
        ctx_, "task", s_.n * s_.ocb * rowBlocks, ctx_.parallelKind(), [&](const Expr& task) {
          Index d = unflatten(task, {s_.n, s_.ocb, rowBlocks});
          return bindVars(ctx_, {"n", "cb", "rb"}, d, [&](const Index& v) {
            Expr first = v[2] * intImm(rowsPerTask);
            Expr count = s_.oh % rowsPerTask == 0 ? intImm(rowsPerTask)
                                                  : min(intImm(rowsPerTask), intImm(s_.oh) - first);
            return loopRange(ctx_, "oh", first, count, ForKind::kSerial,
                             [&](const Expr& oh) { return row(v[0], v[1], oh); });
          });
        });
  }

 private:
  Stmt row(const Expr& n, const Expr& cb, const Expr& oh) {
    Expr top = oh * intImm(s_.sy) - intImm(s_.pt);
    auto [first, count] = s_.kernelRows(oh);
    return bindVars(ctx_, {"kh_lo", "kh_n"}, {first, count}, [&](const Index& k) {
      Expr ih0 = top + k[0] * intImm(s_.dy);
      Expr xRow = ((n * intImm(s_.icb) + cb) * intImm(s_.h) + ih0) * intImm(s_.w * L_);
      return bindVar(ctx_, "x_row", xRow, [&](const Expr& xr) {
        std::vector<Stmt> parts;
        for (int64_t ow = 0; ow < first_; ++ow) parts.push_back(edge(n, cb, oh, k, xr, ow));
        int64_t width = end_ - first_, full = width / mr_, rem = width % mr_;
        parts.push_back(loop(ctx_, "tile", full, ForKind::kSerial, [&](const Expr& t) {
          return tile(n, cb, oh, k, xr, intImm(first_) + t * intImm(mr_), mr_, 0, s_.kw);
        }));
        if (rem > 0) {
          parts.push_back(
              tile(n, cb, oh, k, xr, intImm(first_ + full * mr_), static_cast<int>(rem), 0, s_.kw));
        }
        for (int64_t ow = end_; ow < s_.ow; ++ow) parts.push_back(edge(n, cb, oh, k, xr, ow));
        return seq(parts);
      });
    });
  }

  // Pixel OW alone, with its kernel columns clipped to the input.
  Stmt edge(const Expr& n, const Expr& cb, const Expr& oh, const Index& k, const Expr& xRow,
            int64_t ow) {
    int64_t left = ow * s_.sx - s_.pl;  // input column of kernel column 0
    int64_t c0 = std::clamp<int64_t>(ceilDiv(-left, s_.dx), 0, s_.kw);
    int64_t c1 = left > s_.w - 1 ? 0 : std::min<int64_t>(s_.kw, (s_.w - 1 - left) / s_.dx + 1);
    return tile(n, cb, oh, k, xRow, intImm(ow), 1, c0, std::max<int64_t>(0, c1 - c0));
  }

  Stmt tile(const Expr& n, const Expr& cb, const Expr& oh, const Index& k, const Expr& xRow,
            const Expr& ow0, int mr, int64_t firstCol, int64_t cols) {
    Buffer acc = ctx_.localBuffer("acc", t_, {int64_t{mr} * L_});
    Expr lanes = ramp(intImm(0), intImm(1), static_cast<int>(L_));
    Expr bias = bv_ != nullptr ? ctx_.readFlat(bv_, cb * intImm(L_) + lanes) : constant(0, t_);
    std::vector<Stmt> init, out;
    for (int r = 0; r < mr; ++r) {
      Expr at = intImm(int64_t{r} * L_) + lanes;
      init.push_back(store(acc, at, bias));
      out.push_back(storeFn_({n, cb, oh, ow0 + intImm(r), lanes}, load(acc, at)));
    }
    ukernel::DwconvTile spec;
    spec.mr = mr;
    spec.xPixelStride = s_.sx * L_;
    spec.rows = k[1];
    spec.xRowStep = s_.dy * s_.w * L_;
    spec.wRowStep = s_.kw * L_;
    spec.firstCol = firstCol;
    spec.cols = cols;
    spec.xColStep = s_.dx * L_;
    spec.wColStep = L_;
    Expr xBase = xRow + (ow0 * intImm(s_.sx) - intImm(s_.pl)) * intImm(L_);
    Expr wBase = (cb * intImm(s_.kh) + k[0]) * intImm(s_.kw * L_);
    Stmt body =
        ukernel::dwconvTile(spec, ctx_.config().target,
                            {ctx_.param(xv_), ctx_.param(wv_), acc, xBase, wBase}, ctx_.names());
    return allocate(acc, seq({seq(init), body, seq(out)}));
  }

  LowerContext& ctx_;
  const StoreFn& storeFn_;
  ConvBlockedShape s_;
  const ir::Value *xv_, *wv_, *bv_;
  DataType t_;
  int64_t L_;
  int64_t first_ = 0, end_ = 0;
  int mr_ = 1;
};

}  // namespace

Stmt emitDepthwiseBlocked(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  return DepthwiseKernel(ctx, node, storeFn).emit();
}

}  // namespace kiln::kernel
