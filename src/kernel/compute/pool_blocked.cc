// kiln.PoolBlocked: max and average pooling (and the global pools, as one window over the whole
// input) on NCHW[b]c. Channels are the vector lanes, so each output pixel is one vector reduced
// over the taps of its window that lie inside the input.
#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"
#include "window.h"

namespace kiln::kernel {
namespace {

Stmt emitPoolBlocked(LowerContext& ctx, const ir::Node& node, const StoreFn& storeFn) {
  const ir::Value* xv = node.inputs[0];
  const Dims& xs = xv->type.shape;
  const Dims& ys = node.outputs[0]->type.shape;
  if (xs.size() != 5) unsupported(node, "expected a 2-D blocked input [N, C/b, H, W, b]");
  DataType t = node.outputs[0]->type.dtype;
  int64_t lanes = xs[4];
  bool isMax = node.attrs.getString("mode", "") == "max";
  bool includePad = node.attrs.getInt("count_include_pad", 0) != 0;
  Dims kernel = node.attrs.getInts("kernel_shape", {});
  std::vector<WindowDim> win =
      resolveWindow(node, Dims(xs.begin(), xs.end() - 1), Dims(ys.begin(), ys.end() - 1), kernel);
  const WindowDim &wy = win[0], &wx = win[1];
  Expr vec = ramp(intImm(0), intImm(1), static_cast<int>(lanes));
  Expr init = isMax ? lowest(t) : constant(0, t);
  int64_t rows = xs[0] * xs[1] * wy.out;
  ForKind kind = rows * wx.out * lanes >= (1 << 12) ? ctx.parallelKind() : ForKind::kSerial;
  return loop(ctx, "task", rows, kind, [&](const Expr& task) {
    Index d = unflatten(task, {xs[0] * xs[1], wy.out});
    return bindVars(ctx, {"plane", "oh"}, d, [&](const Index& v) {
      const Expr &plane = v[0], &oh = v[1];
      Expr khLo = wy.tapLo(oh), khN = max(intImm(0), wy.tapHi(oh) - khLo);
      return loop(ctx, "ow", wx.out, ForKind::kSerial, [&](const Expr& ow) {
        Expr kwLo = wx.tapLo(ow), kwN = max(intImm(0), wx.tapHi(ow) - kwLo);
        Buffer acc = ctx.localBuffer("acc", t, {lanes});
        Stmt taps = loopRange(ctx, "kh", khLo, khN, ForKind::kSerial, [&](const Expr& kh) {
          Expr row = (plane * intImm(wy.in) + wy.inputPos(oh, kh)) * intImm(wx.in);
          return loopRange(ctx, "kw", kwLo, kwN, ForKind::kSerial, [&](const Expr& kw) {
            Expr x = ctx.readFlat(xv, (row + wx.inputPos(ow, kw)) * intImm(lanes) + vec);
            Expr a = load(acc, vec);
            return store(acc, vec, isMax ? max(a, x) : a + x);
          });
        });
        Expr value = load(acc, vec);
        if (!isMax) {
          Expr count = includePad ? wy.paddedTaps(oh) * wx.paddedTaps(ow) : khN * kwN;
          value = value / cast(t, max(count, intImm(1)));
        }
        Index out{floorDivBy(plane, xs[1]), binary(BinaryOp::kFloorMod, plane, intImm(xs[1])), oh,
                  ow, vec};
        return allocate(acc, seq({store(acc, vec, init), taps, storeFn(out, value)}));
      });
    });
  });
}

}  // namespace

void addBlockedLayoutLowerings(LoweringMap& table) {
  table["kiln.ConvBlocked"].emit = emitConvBlocked;
  table["kiln.PoolBlocked"].emit = emitPoolBlocked;
  table["kiln.LayoutTransform"] = layoutTransformLowering();
  table["kiln.MatMulPacked"].emit = emitMatMulPacked;
  table["kiln.MatMulPacked"].symbolicSizes = true;
}

}  // namespace kiln::kernel
