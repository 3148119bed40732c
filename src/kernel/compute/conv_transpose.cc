// ConvTranspose (NCHW, 1-D and 2-D, groups, dilations, strides, pads, output_padding): each input
// row scatters into the output rows it reaches; an output row (or a column tile of a row too wide
// for one local buffer) is accumulated locally, so every output element is stored exactly once
// through the epilogue.
#include <algorithm>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"
#include "window.h"

namespace kiln::kernel {
namespace {

Index outIndex(size_t rank, const Expr& n, const Expr& c, const Expr& oh, const Expr& ow) {
  if (rank == 3) return {n, c, ow};
  return {n, c, oh, ow};
}

// The windows of a transposed convolution, seen from the output: output position o takes input
// position (o + padBegin - k*dilation) / stride when that divides evenly.
std::vector<WindowDim> transposeWindows(const ir::Node& node, const Dims& xs, const Dims& ws,
                                        const Dims& ys) {
  size_t nd = xs.size() - 2;
  Dims strides = node.attrs.getInts("strides", Dims(nd, 1));
  Dims dil = node.attrs.getInts("dilations", Dims(nd, 1));
  Dims pads = node.attrs.getInts("pads", Dims(2 * nd, 0));
  Dims outPad = node.attrs.getInts("output_padding", Dims(nd, 0));
  std::string autoPad = node.attrs.getString("auto_pad", "NOTSET");
  if (strides.size() != nd || dil.size() != nd || pads.size() != 2 * nd || outPad.size() != nd) {
    unsupported(node, "strides/dilations/pads/output_padding do not match the spatial rank");
  }
  bool derived =
      node.attrs.has("output_shape") || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  std::vector<WindowDim> win(nd);
  for (size_t d = 0; d < nd; ++d) {
    WindowDim& w = win[d];
    w.in = xs[d + 2], w.out = ys[d + 2], w.kernel = ws[d + 2], w.stride = strides[d],
    w.dilation = dil[d];
    if (w.stride <= 0 || w.dilation <= 0) unsupported(node, "strides and dilations must be > 0");
    if (derived) {
      int64_t total = w.stride * (w.in - 1) + outPad[d] + (w.kernel - 1) * w.dilation + 1 - w.out;
      bool lower = autoPad == "SAME_LOWER";
      w.padBegin = lower ? total - total / 2 : total / 2;
    } else if (autoPad == "VALID") {
      w.padBegin = 0;
    } else {
      w.padBegin = pads[d];
    }
  }
  if (nd == 1) win.insert(win.begin(), WindowDim{});
  return win;
}

}  // namespace

Stmt emitConvTranspose(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  const ir::Value* xv = node.inputs[0];
  const ir::Value* wv = node.inputs[1];
  const ir::Value* bv = hasInput(node, 2) ? node.inputs[2] : nullptr;
  const Dims& xs = xv->type.shape;
  const Dims& ws = wv->type.shape;  // [IC, OC/group, k...]
  const Dims& ys = node.outputs[0]->type.shape;
  if (xs.size() != 3 && xs.size() != 4)
    unsupported(node, "only 1-D and 2-D ConvTranspose are supported");
  if (ws.size() != xs.size() || ys.size() != xs.size())
    unsupported(node, "weight/output rank differs from input rank");
  DataType t = node.outputs[0]->type.dtype;
  if (!t.isFloat()) unsupported(node, strCat("dtype ", t.str(), "; expected a float type"));
  std::vector<WindowDim> win = transposeWindows(node, xs, ws, ys);
  const WindowDim& wy = win[0];
  const WindowDim& wx = win[1];
  int64_t groups = node.attrs.getInt("group", 1);
  int64_t n = xs[0], ic = xs[1], oc = ys[1];
  if (groups <= 0 || ic % groups != 0 || oc % groups != 0 || ws[1] * groups != oc) {
    unsupported(node, "group does not divide the channels consistently");
  }
  int64_t icg = ic / groups, ocg = oc / groups;
  size_t rank = ys.size();
  int64_t owTile = rowTile(ctx, t, wx.out);
  int64_t tiles = ceilDiv(wx.out, owTile);
  bool tiled = tiles > 1;
  return loop(ctx, "task", n * oc * wy.out * tiles, ctx.parallelKind(), [&](const Expr& task) {
    Expr row = tiled ? floorDivBy(task, tiles) : task;
    Expr oh = binary(BinaryOp::kFloorMod, row, intImm(wy.out));
    Expr nc = floorDivBy(row, wy.out);
    Expr bn = floorDivBy(nc, oc);
    Expr c = binary(BinaryOp::kFloorMod, nc, intImm(oc));
    Expr g = floorDivBy(c, ocg);
    Expr cg = binary(BinaryOp::kFloorMod, c, intImm(ocg));
    Expr tileStart = binary(BinaryOp::kFloorMod, task, intImm(tiles)) * intImm(owTile);
    return bindVar(ctx, "ow0", tiled ? tileStart : intImm(0), [&](const Expr& ow0) {
      // Output columns [ow0, ow0 + ext) of row oh; acc[j] holds column ow0 + j.
      Expr ext = wx.out % owTile == 0 ? intImm(owTile) : min(intImm(owTile), intImm(wx.out) - ow0);
      Buffer acc = ctx.localBuffer("acc", t, {owTile});
      Expr b0 = bv != nullptr ? ctx.readFlat(bv, c) : constant(0, t);
      Stmt init = loopRange(ctx, "ow", intImm(0), ext, ctx.vectorKind(),
                            [&](const Expr& j) { return store(acc, j, b0); });
      Stmt body = loop(ctx, "icl", icg, ForKind::kSerial, [&](const Expr& icl) {
        Expr ci = g * intImm(icg) + icl;
        return loop(ctx, "kh", wy.kernel, ForKind::kSerial, [&](const Expr& kh) {
          Expr num = oh + intImm(wy.padBegin) - kh * intImm(wy.dilation);
          Expr ih = floorDivBy(num, wy.stride);
          Expr ok = compare(CompareOp::kEQ, binary(BinaryOp::kFloorMod, num, intImm(wy.stride)),
                            intImm(0)) &&
                    compare(CompareOp::kGE, ih, intImm(0)) &&
                    compare(CompareOp::kLT, ih, intImm(wy.in));
          Stmt taps = loop(ctx, "kw", wx.kernel, ForKind::kSerial, [&](const Expr& kw) {
            // ow = iw*stride + off must lie in [ow0, ow0 + ext).
            Expr off = kw * intImm(wx.dilation) - intImm(wx.padBegin);
            Expr lo = max(intImm(0), ceilDivBy(ow0 - off, wx.stride));
            Expr hi = min(intImm(wx.in), ceilDivBy(ow0 + ext - off, wx.stride));
            Expr wIdx = ((ci * intImm(ocg) + cg) * intImm(wy.kernel) + kh) * intImm(wx.kernel) + kw;
            Expr wVar = ctx.freshVar("w", t);
            Expr xRow = ((bn * intImm(ic) + ci) * intImm(wy.in) + ih) * intImm(wx.in);
            Stmt inner = loopRange(
                ctx, "iw", lo, max(intImm(0), hi - lo), ctx.vectorKind(), [&](const Expr& iw) {
                  Expr j = iw * intImm(wx.stride) + off - ow0;
                  return store(acc, j, load(acc, j) + wVar * ctx.readFlat(xv, xRow + iw));
                });
            return let(wVar, ctx.readFlat(wv, wIdx), inner);
          });
          return ifThenElse(ok, taps);
        });
      });
      Stmt epilogue = loopRange(ctx, "ow", intImm(0), ext, ctx.vectorKind(), [&](const Expr& j) {
        return storeFn(outIndex(rank, bn, c, oh, ow0 + j), load(acc, j));
      });
      return allocate(acc, seq({init, body, epilogue}));
    });
  });
}

}  // namespace kiln::kernel
