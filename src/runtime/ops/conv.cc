// Convolutions kiln compiles no kernel for (three or more spatial dims: video and volumetric
// models), as direct loops in double precision, and the convolution sums the integer
// convolutions share.
#include <algorithm>

#include "context_view.h"
#include "conv_sums.h"
#include "kiln/opdef/window.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

ConvSums convSums(const RuntimeOpContext& ctx, const NDArray& x, const NDArray& w,
                  const std::vector<double>& xzp, const std::vector<double>& wzp) {
  const Shape& xs = x.shape();
  const Shape& ws = w.shape();
  size_t nd = xs.size() - 2;
  if (xs.size() < 3 || ws.size() != xs.size()) {
    fail(ctx, "input ", shapeStr(xs), " and weight ", shapeStr(ws), " do not form a convolution");
  }
  int64_t group = attrInt(ctx, "group", 1);
  int64_t oc = ws[0], icg = ws[1];
  if (group < 1 || xs[1] != icg * group || oc % group != 0) {
    fail(ctx, "channels of ", shapeStr(xs), " and ", shapeStr(ws), " do not match group ", group);
  }
  opdef::WindowGeometry g = opdef::windowGeometry(ContextView(ctx), Shape(xs.begin() + 2, xs.end()),
                                                  Shape(ws.begin() + 2, ws.end()));
  const std::vector<int64_t>&strides = g.strides, &dil = g.dilations, &pads = g.padsBegin;
  ConvSums r;
  r.shape = {xs[0], oc};
  r.shape.insert(r.shape.end(), g.output.begin(), g.output.end());
  std::vector<double> xv = toDoubles(ctx, x), wv = toDoubles(ctx, w);
  std::vector<int64_t> xst = rowMajorStrides(xs), wst = rowMajorStrides(ws);
  Shape kernel(ws.begin() + 2, ws.end());
  r.sums.assign(static_cast<size_t>(shapeNumel(r.shape)), 0.0);
  int64_t ocg = oc / group;
  forEachIndex(r.shape, [&](int64_t e, const std::vector<int64_t>& yi) {
    int64_t o = yi[1];
    double zw = wzp[wzp.size() == 1 ? 0 : static_cast<size_t>(o)];
    double sum = 0;
    for (int64_t q = 0; q < icg; ++q) {
      int64_t c = (o / ocg) * icg + q;
      forEachIndex(kernel, [&](int64_t, const std::vector<int64_t>& k) {
        int64_t xi = yi[0] * xst[0] + c * xst[1], wi = o * wst[0] + q * wst[1];
        for (size_t d = 0; d < nd; ++d) {
          int64_t pos = yi[2 + d] * strides[d] - pads[d] + k[d] * dil[d];
          if (pos < 0 || pos >= xs[2 + d]) return;
          xi += pos * xst[2 + d];
          wi += k[d] * wst[2 + d];
        }
        sum += (xv[static_cast<size_t>(xi)] - xzp[0]) * (wv[static_cast<size_t>(wi)] - zw);
      });
    }
    r.sums[static_cast<size_t>(e)] = sum;
  });
  return r;
}

// Conv (X, W[, B]) of floating-point tensors of any spatial rank.
void runConv(RuntimeOpContext& ctx) {
  ConvSums r = convSums(ctx, ctx.input(0), ctx.input(1), {0.0}, {0.0});
  if (ctx.numInputs() > 2 && ctx.hasInput(2)) {
    std::vector<double> bias = toDoubles(ctx, ctx.input(2));
    int64_t oc = r.shape[1], inner = shapeNumel(r.shape) / (r.shape[0] * oc);
    for (size_t e = 0; e < r.sums.size(); ++e) {
      r.sums[e] += bias[static_cast<size_t>(static_cast<int64_t>(e) / inner % oc)];
    }
  }
  NDArray y = ctx.output(0, r.shape);
  storeDoubles(ctx, y, r.sums);
}

}  // namespace kiln::runtime::ops
