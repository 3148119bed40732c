// Sliding windows of convolution and pooling, with pads resolved by the IR (as shape inference
// does).
#include "window.h"

#include <algorithm>

#include "../loop_builder.h"
#include "kiln/ir/window.h"
#include "kiln/support/error.h"

namespace kiln::kernel {

int64_t rowTile(LowerContext& ctx, DataType t, int64_t out) {
  int64_t cap = std::max<int64_t>(1, std::min(localElementsCap(t), out));
  return std::clamp<int64_t>(ctx.knob("ow_tile", out <= cap ? out : kWideRowTile), 1, cap);
}

Expr WindowDim::inputPos(const Expr& o, const Expr& k) const {
  return o * intImm(stride) + k * intImm(dilation) - intImm(padBegin);
}

Expr WindowDim::outLo(const Expr& k) const {
  return max(intImm(0), ceilDivBy(intImm(padBegin) - k * intImm(dilation), stride));
}

Expr WindowDim::outHi(const Expr& k) const {
  return min(intImm(out), ceilDivBy(intImm(in + padBegin) - k * intImm(dilation), stride));
}

Expr WindowDim::tapLo(const Expr& o) const {
  return max(intImm(0), ceilDivBy(intImm(padBegin) - o * intImm(stride), dilation));
}

Expr WindowDim::tapHi(const Expr& o) const {
  return min(intImm(kernel), ceilDivBy(intImm(in + padBegin) - o * intImm(stride), dilation));
}

std::vector<WindowDim> resolveWindow(const ir::Node& node, const Dims& inShape,
                                     const Dims& outShape, const Dims& kernel) {
  size_t nd = kernel.size();
  KILN_CHECK(inShape.size() == nd + 2 && outShape.size() == nd + 2, "window rank mismatch");
  Dims spatial(inShape.begin() + 2, inShape.end());
  ir::WindowGeometry g = ir::resolveWindow(node, spatial, kernel);
  std::vector<WindowDim> dims(nd);
  for (size_t d = 0; d < nd; ++d) {
    WindowDim& w = dims[d];
    w.in = spatial[d];
    w.out = outShape[d + 2];
    w.kernel = kernel[d];
    w.stride = g.strides[d];
    w.dilation = g.dilations[d];
    w.padBegin = g.padsBegin[d];
    w.padEnd = g.padsEnd[d];
    if (g.output[d] != w.out) {
      unsupported(node, strCat("output size ", w.out, " in spatial dim ", d,
                               " differs from the window's ", g.output[d]));
    }
  }
  return dims;
}

Expr WindowDim::paddedTaps(const Expr& o) const {
  Expr start = o * intImm(stride) - intImm(padBegin);
  return clampTo(ceilDivBy(intImm(in + padEnd) - start, dilation), 0, kernel);
}

}  // namespace kiln::kernel
