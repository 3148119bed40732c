// Reads kiln.ConvBlocked's geometry once, so the lowerings work with plain numbers.
#include "conv_blocked_shape.h"

#include "kiln/support/error.h"

namespace kiln::kernel {

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
  s.oc = node.attrs.getInt("channels");
  s.ocb = y[1];
  s.oh = y[2];
  s.ow = y[3];
  std::vector<int64_t> k = node.attrs.getInts("kernel_shape", {});
  std::vector<int64_t> st = node.attrs.getInts("strides", {1, 1});
  std::vector<int64_t> d = node.attrs.getInts("dilations", {1, 1});
  std::vector<int64_t> p = node.attrs.getInts("pads", {0, 0, 0, 0});
  KILN_CHECK(k.size() == 2 && st.size() == 2 && d.size() == 2 && p.size() == 4,
             "kiln.ConvBlocked '", node.name, "' has malformed window attributes");
  s.kh = k[0], s.kw = k[1], s.sy = st[0], s.sx = st[1], s.dy = d[0], s.dx = d[1];
  s.pt = p[0], s.pl = p[1], s.pb = p[2], s.pr = p[3];
  return s;
}

}  // namespace kiln::kernel
