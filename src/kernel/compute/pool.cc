// Pooling (MaxPool, AveragePool, LpPool over 1-D/2-D windows, and the global pools): each task
// reduces the windows of one output row into a local row, vectorized over the output columns.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"
#include "window.h"

namespace kiln::kernel {
namespace {

enum class PoolKind { kMax, kAverage, kLp };

Index outIndex(size_t rank, const Expr& nc, int64_t channels, const Expr& oh, const Expr& ow) {
  Expr n = floorDivBy(nc, channels);
  Expr c = binary(BinaryOp::kFloorMod, nc, intImm(channels));
  if (rank == 3) return {n, c, ow};
  return {n, c, oh, ow};
}

Stmt emitPool(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn, PoolKind kind) {
  const ir::Value* xv = node.inputs[0];
  const Dims& xs = xv->type.shape;
  const Dims& ys = node.outputs[0]->type.shape;
  if (xs.size() != 3 && xs.size() != 4) {
    unsupported(node, strCat("input of rank ", xs.size(), "; expected 3 (1-D) or 4 (2-D, NCHW)"));
  }
  DataType t = node.outputs[0]->type.dtype;
  if (!t.isFloat()) unsupported(node, strCat("dtype ", t.str(), "; expected a float type"));
  Dims kernel = node.attrs.getInts("kernel_shape", {});
  if (kernel.size() != xs.size() - 2)
    unsupported(node, "kernel_shape does not match the spatial rank");
  std::vector<WindowDim> win = resolveWindow(node, xs, ys, kernel);
  if (win.size() == 1) win.insert(win.begin(), WindowDim{});
  const WindowDim& wy = win[0];
  const WindowDim& wx = win[1];
  bool includePad = node.attrs.getInt("count_include_pad", 0) != 0;
  double p = static_cast<double>(node.attrs.getInt("p", 2));
  int64_t nc = xs[0] * xs[1];
  size_t rank = xs.size();

  Expr init = kind == PoolKind::kMax ? lowest(t) : constant(0, t);
  auto combine = [&](const Expr& acc, const Expr& x) -> Expr {
    if (kind == PoolKind::kMax) return max(acc, x);
    if (kind == PoolKind::kAverage) return acc + x;
    Expr a = call(Intrinsic::kAbs, {x});
    return acc + (p == 2 ? a * a : p == 1 ? a : call(Intrinsic::kPow, {a, constant(p, t)}));
  };
  // Rows too wide for one stack buffer are split into column tiles, each a task of its own.
  int64_t owTile = rowTile(ctx, t, wx.out);
  int64_t tiles = ceilDiv(wx.out, owTile);
  bool tiled = tiles > 1;
  return loop(ctx, "task", nc * wy.out * tiles, ctx.parallelKind(), [&](const Expr& task) {
    Expr row = tiled ? floorDivBy(task, tiles) : task;
    Index derived{binary(BinaryOp::kFloorMod, row, intImm(wy.out)), floorDivBy(row, wy.out)};
    if (tiled) derived.push_back(binary(BinaryOp::kFloorMod, task, intImm(tiles)) * intImm(owTile));
    std::vector<std::string> names{"oh", "plane"};
    if (tiled) names.emplace_back("ow0");
    return bindVars(ctx, names, derived, [&](const Index& d) {
      const Expr &oh = d[0], &plane = d[1];
      // Output columns [ow0, ow0 + ext) of the row; acc[j] holds column ow0 + j.
      Expr ow0 = tiled ? d[2] : intImm(0);
      Expr ext = wx.out % owTile == 0 ? intImm(owTile) : min(intImm(owTile), intImm(wx.out) - ow0);
      Buffer acc = ctx.localBuffer("acc", t, {owTile});
      Stmt initRow = loopRange(ctx, "ow", intImm(0), ext, ctx.vectorKind(),
                               [&](const Expr& j) { return store(acc, j, init); });
      Expr khLo = wy.tapLo(oh);
      Expr khExt = max(intImm(0), wy.tapHi(oh) - khLo);
      Stmt body = loopRange(ctx, "kh", khLo, khExt, ForKind::kSerial, [&](const Expr& kh) {
        Expr xRow = (plane * intImm(wy.in) + wy.inputPos(oh, kh)) * intImm(wx.in);
        return loop(ctx, "kw", wx.kernel, ForKind::kSerial, [&](const Expr& kw) {
          Expr lo = wx.outLo(kw), hi = wx.outHi(kw);
          if (tiled) lo = max(lo, ow0), hi = min(hi, ow0 + ext);
          return loopRange(
              ctx, "ow", lo, max(intImm(0), hi - lo), ctx.vectorKind(), [&](const Expr& ow) {
                Expr j = ow - ow0;
                return store(acc, j,
                             combine(load(acc, j), ctx.readFlat(xv, xRow + wx.inputPos(ow, kw))));
              });
        });
      });
      Stmt finish = loopRange(ctx, "ow", intImm(0), ext, ctx.vectorKind(), [&](const Expr& j) {
        Expr ow = ow0 + j;
        Expr v = load(acc, j);
        if (kind == PoolKind::kAverage) {
          Expr count = includePad ? wy.paddedTaps(oh) * wx.paddedTaps(ow)
                                  : max(intImm(0), wy.tapHi(oh) - wy.tapLo(oh)) *
                                        max(intImm(0), wx.tapHi(ow) - wx.tapLo(ow));
          v = v / cast(t, max(count, intImm(1)));
        } else if (kind == PoolKind::kLp) {
          v = p == 2   ? call(Intrinsic::kSqrt, {v})
              : p == 1 ? v
                       : call(Intrinsic::kPow, {v, constant(1.0 / p, t)});
        }
        return storeFn(outIndex(rank, plane, xs[1], oh, ow), v);
      });
      return allocate(acc, seq({initRow, body, finish}));
    });
  });
}

Stmt emitGlobalPool(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn,
                    PoolKind kind) {
  const ir::Value* xv = node.inputs[0];
  const Dims& xs = xv->type.shape;
  if (xs.size() < 2)
    unsupported(node, strCat("input of rank ", xs.size(), "; expected N, C, spatial..."));
  DataType t = node.outputs[0]->type.dtype;
  if (!t.isFloat()) unsupported(node, strCat("dtype ", t.str(), "; expected a float type"));
  int64_t planes = xs[0] * xs[1];
  int64_t size = product(xs, 2);
  double p = static_cast<double>(node.attrs.getInt("p", 2));
  Expr init = kind == PoolKind::kMax ? lowest(t) : constant(0, t);
  // reduceRange merges partial results with COMBINE too, so COMBINE must be the plain merge and
  // the per-element work (|x|^p) goes into the value.
  Combine combine = [&](const Expr& acc, const Expr& x) -> Expr {
    return kind == PoolKind::kMax ? max(acc, x) : acc + x;
  };
  auto element = [&](const Expr& x) -> Expr {
    if (kind != PoolKind::kLp) return x;
    Expr a = call(Intrinsic::kAbs, {x});
    return p == 2 ? a * a : call(Intrinsic::kPow, {a, constant(p, t)});
  };
  ForKind outer = planes * size >= (1 << 14) ? ctx.parallelKind() : ForKind::kSerial;
  return loop(ctx, "plane", planes, outer, [&](const Expr& plane) {
    Expr base = plane * intImm(size);
    return reduceRange(
        ctx, t, size, init, combine,
        [&](const Expr& k) { return element(ctx.readFlat(xv, base + k)); },
        [&](const Expr& r) {
          Expr v = r;
          if (kind == PoolKind::kAverage) v = r / constant(static_cast<double>(size), t);
          if (kind == PoolKind::kLp) {
            v = p == 2 ? call(Intrinsic::kSqrt, {r})
                       : call(Intrinsic::kPow, {r, constant(1.0 / p, t)});
          }
          Index idx{floorDivBy(plane, xs[1]), binary(BinaryOp::kFloorMod, plane, intImm(xs[1]))};
          for (size_t d = 2; d < xs.size(); ++d) idx.push_back(intImm(0));
          return storeFn(idx, v);
        });
  });
}

}  // namespace

void addPoolLowerings(LoweringMap& table) {
  table["MaxPool"].emit = [](LowerContext& c, const ir::Node& n, const StoreFn& s) {
    if (n.attrs.getInt("storage_order", 0) != 0 && n.outputs.size() > 1) {
      unsupported(n, "storage_order=1 with an Indices output");
    }
    return emitPool(c, n, s, PoolKind::kMax);
  };
  table["AveragePool"].emit = [](LowerContext& c, const ir::Node& n, const StoreFn& s) {
    return emitPool(c, n, s, PoolKind::kAverage);
  };
  table["LpPool"].emit = [](LowerContext& c, const ir::Node& n, const StoreFn& s) {
    return emitPool(c, n, s, PoolKind::kLp);
  };
  table["GlobalMaxPool"].emit = [](LowerContext& c, const ir::Node& n, const StoreFn& s) {
    return emitGlobalPool(c, n, s, PoolKind::kMax);
  };
  table["GlobalAveragePool"].emit = [](LowerContext& c, const ir::Node& n, const StoreFn& s) {
    return emitGlobalPool(c, n, s, PoolKind::kAverage);
  };
  table["GlobalLpPool"].emit = [](LowerContext& c, const ir::Node& n, const StoreFn& s) {
    return emitGlobalPool(c, n, s, PoolKind::kLp);
  };
}

}  // namespace kiln::kernel
