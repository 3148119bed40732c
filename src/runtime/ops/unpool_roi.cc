// MaxUnpool (values scattered back to the positions MaxPool's Indices name) and RoiAlign
// (average or max of bilinear samples over each region of interest), as ONNX Runtime computes
// them.
#include <cmath>
#include <limits>

#include "context_view.h"
#include "kiln/opdef/spatial.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runMaxUnpool(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::vector<int64_t> indices = inputInts(ctx, 1, "I");
  // The indices address the tensor MaxPool read, of the default shape; output_shape may add
  // room at the end of each dim, where nothing lands.
  opdef::UnpoolShape shapes = opdef::maxUnpoolShape(ContextView(ctx));  // as at compile time
  const Shape& base = shapes.unpooled;
  const Shape& out = shapes.out;
  NDArray y = ctx.output(0, out);
  std::memset(y.data(), 0, y.nbytes());
  if (static_cast<int64_t>(indices.size()) != x.numel()) {
    fail(ctx, "I has ", indices.size(), " indices for ", x.numel(), " values of X");
  }
  int64_t total = shapeNumel(base);
  size_t bytes = x.dtype().bytes();
  for (int64_t e = 0; e < x.numel(); ++e) {
    int64_t at = indices[static_cast<size_t>(e)];
    if (at < 0 || at >= total) {
      fail(ctx, "index ", at, " (element ", e, " of I) is outside ", listStr(base));
    }
    int64_t flat = 0, rest = at;  // unravel in BASE, ravel in OUT
    std::vector<int64_t> idx(base.size());
    for (size_t d = base.size(); d-- > 0;) {
      idx[d] = rest % base[d];
      rest /= base[d];
    }
    for (size_t d = 0; d < out.size(); ++d) flat = flat * out[d] + idx[d];
    std::memcpy(static_cast<char*>(y.data()) + static_cast<size_t>(flat) * bytes,
                static_cast<const char*>(x.data()) + static_cast<size_t>(e) * bytes, bytes);
  }
}

void runRoiAlign(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const NDArray& rois = ctx.input(1);
  std::vector<int64_t> batch = inputInts(ctx, 2, "batch_indices");
  const Shape& in = x.shape();
  Shape outShape = opdef::roiAlignShape(ContextView(ctx));  // as at compile time
  int64_t oh = outShape[2], ow = outShape[3];
  int64_t ratio = attrInt(ctx, "sampling_ratio", 0);
  double scale = attrFloat(ctx, "spatial_scale", 1.0);
  bool avg = attrString(ctx, "mode", "avg") == "avg";
  bool halfPixel = attrString(ctx, "coordinate_transformation_mode", "half_pixel") == "half_pixel";
  int64_t r = rois.shape()[0], c = in[1], h = in[2], w = in[3];
  NDArray y = ctx.output(0, {r, c, oh, ow});
  std::vector<double> box = toDoubles(ctx, rois);
  visitNumeric(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(x.data());
    T* dst = static_cast<T*>(y.data());
    for (int64_t n = 0; n < r; ++n) {
      int64_t b = batch[static_cast<size_t>(n)];
      if (b < 0 || b >= in[0]) fail(ctx, "batch index ", b, " of roi ", n, " is out of range");
      double offset = halfPixel ? 0.5 : 0.0;
      double x1 = box[n * 4] * scale - offset, y1 = box[n * 4 + 1] * scale - offset;
      double rw = box[n * 4 + 2] * scale - offset - x1, rh = box[n * 4 + 3] * scale - offset - y1;
      if (!halfPixel) {
        rw = std::max(rw, 1.0);
        rh = std::max(rh, 1.0);
      }
      double bh = rh / static_cast<double>(oh), bw = rw / static_cast<double>(ow);
      int64_t gh =
          ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(rh / static_cast<double>(oh)));
      int64_t gw =
          ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(rw / static_cast<double>(ow)));
      double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
      for (int64_t ch = 0; ch < c; ++ch) {
        const T* plane = src + (b * c + ch) * h * w;
        auto v = [&](int64_t yy, int64_t xx) { return static_cast<double>(plane[yy * w + xx]); };
        for (int64_t ph = 0; ph < oh; ++ph) {
          for (int64_t pw = 0; pw < ow; ++pw) {
            double acc = avg ? 0.0 : -std::numeric_limits<double>::infinity();
            for (int64_t iy = 0; iy < gh; ++iy) {
              double yy = y1 + static_cast<double>(ph) * bh +
                          (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
              for (int64_t ix = 0; ix < gw; ++ix) {
                double xx = x1 + static_cast<double>(pw) * bw +
                            (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
                double sample[4] = {0, 0, 0, 0};
                if (!(yy < -1.0 || yy > static_cast<double>(h) || xx < -1.0 ||
                      xx > static_cast<double>(w))) {
                  double sy = std::max(yy, 0.0), sx = std::max(xx, 0.0);
                  auto yl = static_cast<int64_t>(sy), xl = static_cast<int64_t>(sx);
                  int64_t yh = yl + 1, xh = xl + 1;
                  if (yl >= h - 1) yh = yl = h - 1, sy = static_cast<double>(yl);
                  if (xl >= w - 1) xh = xl = w - 1, sx = static_cast<double>(xl);
                  double ly = sy - static_cast<double>(yl), lx = sx - static_cast<double>(xl);
                  double hy = 1 - ly, hx = 1 - lx;
                  sample[0] = hy * hx * v(yl, xl);
                  sample[1] = hy * lx * v(yl, xh);
                  sample[2] = ly * hx * v(yh, xl);
                  sample[3] = ly * lx * v(yh, xh);
                }
                if (avg) {
                  acc += sample[0] + sample[1] + sample[2] + sample[3];
                } else {
                  acc = std::max({acc, sample[0], sample[1], sample[2], sample[3]});
                }
              }
            }
            dst[((n * c + ch) * oh + ph) * ow + pw] = static_cast<T>(avg ? acc / count : acc);
          }
        }
      }
    }
  });
}

}  // namespace kiln::runtime::ops
