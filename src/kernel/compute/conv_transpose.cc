// ConvTranspose (NCHW with any number of spatial dims, groups, dilations, strides, pads,
// output_padding): each input row scatters into the output rows it reaches; an output row (or a
// column tile of a row too wide for one local buffer) is accumulated locally, so every output
// element is stored exactly once through the epilogue. A row is one position in every spatial
// dim but the last.
#include <algorithm>
#include <functional>

#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"
#include "window.h"

namespace kiln::kernel {
namespace {

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
  return win;
}

}  // namespace

// The taps of the leading spatial dims (all but the last) that reach output row OUT, as nested
// loops: INNER gets the flat input row and the flat leading weight tap, with every tap's input
// position checked to divide evenly and to lie inside the input.
struct LeadTaps {
  LowerContext& ctx;
  const std::vector<WindowDim>& lead;
  const Index& out;  // output position per leading dim
  std::function<Stmt(const Expr& inRow, const Expr& tap)> inner;

  Stmt emit(size_t d, const Expr& inRow, const Expr& tap) const {
    if (d == lead.size()) return inner(inRow, tap);
    const WindowDim& w = lead[d];
    return loop(ctx, "k" + std::to_string(d), w.kernel, ForKind::kSerial, [&](const Expr& k) {
      Expr num = out[d] + intImm(w.padBegin) - k * intImm(w.dilation);
      Expr i = floorDivBy(num, w.stride);
      Expr ok =
          compare(CompareOp::kEQ, binary(BinaryOp::kFloorMod, num, intImm(w.stride)), intImm(0)) &&
          compare(CompareOp::kGE, i, intImm(0)) && compare(CompareOp::kLT, i, intImm(w.in));
      return ifThenElse(ok, emit(d + 1, inRow * intImm(w.in) + i, tap * intImm(w.kernel) + k));
    });
  }
};

Stmt emitConvTranspose(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  const ir::Value* xv = node.inputs[0];
  const ir::Value* wv = node.inputs[1];
  const ir::Value* bv = hasInput(node, 2) ? node.inputs[2] : nullptr;
  const Dims& xs = xv->type.shape;
  const Dims& ws = wv->type.shape;  // [IC, OC/group, k...]
  const Dims& ys = node.outputs[0]->type.shape;
  if (xs.size() < 3) {
    unsupported(node, strCat("input rank ", xs.size(), "; expected N, C and a spatial dim"));
  }
  if (ws.size() != xs.size() || ys.size() != xs.size())
    unsupported(node, "weight/output rank differs from input rank");
  DataType t = node.outputs[0]->type.dtype;
  if (!t.isFloat()) unsupported(node, strCat("dtype ", t.str(), "; expected a float type"));
  std::vector<WindowDim> win = transposeWindows(node, xs, ws, ys);
  const WindowDim wx = win.back();
  std::vector<WindowDim> lead(win.begin(), win.end() - 1);
  int64_t rowsPerImage = 1, leadTaps = 1;
  for (const WindowDim& w : lead) rowsPerImage *= w.out, leadTaps *= w.kernel;
  int64_t groups = node.attrs.getInt("group", 1);
  int64_t n = xs[0], ic = xs[1], oc = ys[1];
  if (groups <= 0 || ic % groups != 0 || oc % groups != 0 || ws[1] * groups != oc) {
    unsupported(node, "group does not divide the channels consistently");
  }
  int64_t icg = ic / groups, ocg = oc / groups;
  int64_t owTile = rowTile(ctx, t, wx.out);
  int64_t tiles = ceilDiv(wx.out, owTile);
  bool tiled = tiles > 1;
  return loop(
      ctx, "task", n * oc * rowsPerImage * tiles, ctx.parallelKind(), [&](const Expr& task) {
        Expr row = tiled ? floorDivBy(task, tiles) : task;
        Expr nc = floorDivBy(row, rowsPerImage);
        Index out(lead.size());
        Expr rest = binary(BinaryOp::kFloorMod, row, intImm(rowsPerImage));
        for (size_t d = lead.size(); d-- > 0;) {
          out[d] = binary(BinaryOp::kFloorMod, rest, intImm(lead[d].out));
          rest = floorDivBy(rest, lead[d].out);
        }
        Expr bn = floorDivBy(nc, oc);
        Expr c = binary(BinaryOp::kFloorMod, nc, intImm(oc));
        Expr g = floorDivBy(c, ocg);
        Expr cg = binary(BinaryOp::kFloorMod, c, intImm(ocg));
        Expr tileStart = binary(BinaryOp::kFloorMod, task, intImm(tiles)) * intImm(owTile);
        return bindVar(ctx, "ow0", tiled ? tileStart : intImm(0), [&](const Expr& ow0) {
          // Output columns [ow0, ow0 + ext) of the row; acc[j] holds column ow0 + j.
          Expr ext =
              wx.out % owTile == 0 ? intImm(owTile) : min(intImm(owTile), intImm(wx.out) - ow0);
          Buffer acc = ctx.localBuffer("acc", t, {owTile});
          Expr b0 = bv != nullptr ? ctx.readFlat(bv, c) : constant(0, t);
          Stmt init = loopRange(ctx, "ow", intImm(0), ext, ctx.vectorKind(),
                                [&](const Expr& j) { return store(acc, j, b0); });
          Stmt body = loop(ctx, "icl", icg, ForKind::kSerial, [&](const Expr& icl) {
            Expr ci = g * intImm(icg) + icl;
            LeadTaps taps{
                ctx, lead, out, [&](const Expr& inRow, const Expr& tap) {
                  return loop(ctx, "kw", wx.kernel, ForKind::kSerial, [&](const Expr& kw) {
                    // ow = iw*stride + off must lie in [ow0, ow0 + ext).
                    Expr off = kw * intImm(wx.dilation) - intImm(wx.padBegin);
                    Expr lo = max(intImm(0), ceilDivBy(ow0 - off, wx.stride));
                    Expr hi = min(intImm(wx.in), ceilDivBy(ow0 + ext - off, wx.stride));
                    Expr wIdx = (ci * intImm(ocg) + cg) * intImm(leadTaps) + tap;
                    wIdx = wIdx * intImm(wx.kernel) + kw;
                    Expr wVar = ctx.freshVar("w", t);
                    Expr xRow = inRow * intImm(wx.in);
                    Stmt inner = loopRange(
                        ctx, "iw", lo, max(intImm(0), hi - lo), ctx.vectorKind(),
                        [&](const Expr& iw) {
                          Expr j = iw * intImm(wx.stride) + off - ow0;
                          return store(acc, j, load(acc, j) + wVar * ctx.readFlat(xv, xRow + iw));
                        });
                    return let(wVar, ctx.readFlat(wv, wIdx), inner);
                  });
                }};
            return taps.emit(0, bn * intImm(ic) + ci, intImm(0));
          });
          Stmt epilogue =
              loopRange(ctx, "ow", intImm(0), ext, ctx.vectorKind(), [&](const Expr& j) {
                Index at = {bn, c};
                at.insert(at.end(), out.begin(), out.end());
                at.push_back(ow0 + j);
                return storeFn(at, load(acc, j));
              });
          return allocate(acc, seq({init, body, epilogue}));
        });
      });
}

}  // namespace kiln::kernel
