// Reads kiln.ConvBlocked's geometry once, so the lowerings work with plain numbers.
#include "conv_blocked_shape.h"

#include "kiln/ir/window.h"
#include "window.h"

namespace kiln::kernel {

using namespace tir;  // NOLINT(google-build-using-namespace)

ConvBlockedShape convBlockedShape(const ir::Node& node) {
  ConvBlockedShape s;
  const ir::Shape& x = node.inputs[0]->type.shape;
  const ir::Shape& y = node.outputs[0]->type.shape;
  s.block = node.attrs.getInt("block");
  s.plainInput = node.attrs.getString("input_layout", "blocked") == "plain";
  s.n = x[0];
  s.ic = node.attrs.getInt("in_channels");
  s.icb = (s.ic + s.block - 1) / s.block;
  s.h = x[2];
  s.w = x[3];
  s.ocb = y[1];
  s.oh = y[2];
  s.ow = y[3];
  std::vector<int64_t> k = node.attrs.getInts("kernel_shape", {});
  ir::WindowGeometry g = ir::resolveWindow(node, {s.h, s.w}, k);
  s.kh = k[0], s.kw = k[1];
  s.sy = g.strides[0], s.sx = g.strides[1], s.dy = g.dilations[0], s.dx = g.dilations[1];
  s.pt = g.padsBegin[0], s.pl = g.padsBegin[1], s.pb = g.padsEnd[0], s.pr = g.padsEnd[1];
  return s;
}

std::pair<Expr, Expr> ConvBlockedShape::kernelRows(const Expr& oh) const {
  if (pt + pb == 0) return {intImm(0), intImm(kh)};
  WindowDim rows{h, this->oh, kh, sy, dy, pt, pb};
  Expr first = rows.tapLo(oh);
  return {first, max(intImm(0), rows.tapHi(oh) - first)};
}

}  // namespace kiln::kernel
