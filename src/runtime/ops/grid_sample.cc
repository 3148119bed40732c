// GridSample (4-D): each output pixel samples the input at a normalized (x, y) of the grid, with
// nearest, bilinear or bicubic interpolation and zeros, border or reflection padding, as
// PyTorch's grid_sample (from which ONNX takes the definition) computes it.
#include <cmath>

#include "context_view.h"
#include "kiln/opdef/spatial.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

struct Sampler {
  std::string mode, padding;
  bool alignCorners = false;
};

double unnormalize(double c, int64_t size, bool align) {
  return align ? (c + 1) / 2 * static_cast<double>(size - 1)
               : ((c + 1) * static_cast<double>(size) - 1) / 2;
}

double reflect(double c, double twiceLow, double twiceHigh) {
  if (twiceLow == twiceHigh) return 0;
  double low = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
  c = std::fabs(c - low);
  double extra = std::fmod(c, span);
  bool even = std::fmod(std::floor(c / span), 2.0) == 0;
  return even ? extra + low : span - extra + low;
}

// The padding mode applied to a coordinate (border and reflection keep it inside).
double padded(const Sampler& s, double c, int64_t size) {
  if (s.padding == "border") return std::clamp(c, 0.0, static_cast<double>(size - 1));
  if (s.padding == "reflection") {
    c = s.alignCorners ? reflect(c, 0, 2.0 * static_cast<double>(size - 1))
                       : reflect(c, -1, 2.0 * static_cast<double>(size) - 1);
    return std::clamp(c, 0.0, static_cast<double>(size - 1));
  }
  return c;
}

double cubic(double t, int k) {
  const double a = -0.75;
  double x = k == 0 ? t + 1 : k == 1 ? t : k == 2 ? 1 - t : 2 - t;
  if (k == 1 || k == 2) return ((a + 2) * x - (a + 3)) * x * x + 1;
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

}  // namespace

void runGridSample(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const NDArray& grid = ctx.input(1);
  const Shape& xs = x.shape();
  const Shape& gs = grid.shape();
  opdef::GridSampleSpec spec = opdef::gridSampleSpec(ContextView(ctx));  // as at compile time
  Sampler s{spec.mode, spec.padding, spec.alignCorners};
  int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3], oh = gs[1], ow = gs[2];
  NDArray y = ctx.output(0, {n, c, oh, ow});
  std::vector<double> gv = toDoubles(ctx, grid);
  visitNumeric(ctx, x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_floating_point_v<T>) {
      fail(ctx, "GridSample needs a float input");
    } else {
      const T* in = static_cast<const T*>(x.data());
      T* out = static_cast<T*>(y.data());
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t i = 0; i < oh; ++i) {
          for (int64_t j = 0; j < ow; ++j) {
            const double* g = gv.data() + ((b * oh + i) * ow + j) * 2;
            double ix = unnormalize(g[0], w, s.alignCorners);
            double iy = unnormalize(g[1], h, s.alignCorners);
            if (s.mode != "bicubic") {
              ix = padded(s, ix, w);
              iy = padded(s, iy, h);
            }
            for (int64_t ch = 0; ch < c; ++ch) {
              const T* plane = in + (b * c + ch) * h * w;
              // A tap's value; bicubic pads each tap's own coordinate.
              auto at = [&](double yy, double xx) -> double {
                if (s.mode == "bicubic") {
                  yy = padded(s, yy, h);
                  xx = padded(s, xx, w);
                }
                if (!(yy >= 0 && xx >= 0 && yy < static_cast<double>(h) &&
                      xx < static_cast<double>(w))) {
                  return 0.0;  // also NaN coordinates
                }
                auto yi = static_cast<int64_t>(yy), xi = static_cast<int64_t>(xx);
                return static_cast<double>(plane[yi * w + xi]);
              };
              double v = 0;
              if (s.mode == "nearest") {
                v = at(std::nearbyint(iy), std::nearbyint(ix));
              } else if (s.mode == "bilinear") {
                double x0 = std::floor(ix), y0 = std::floor(iy), fx = ix - x0, fy = iy - y0;
                v = at(y0, x0) * (1 - fx) * (1 - fy) + at(y0, x0 + 1) * fx * (1 - fy) +
                    at(y0 + 1, x0) * (1 - fx) * fy + at(y0 + 1, x0 + 1) * fx * fy;
              } else {
                double x0 = std::floor(ix), y0 = std::floor(iy), fx = ix - x0, fy = iy - y0;
                for (int ky = 0; ky < 4; ++ky) {
                  for (int kx = 0; kx < 4; ++kx) {
                    v += at(y0 - 1 + ky, x0 - 1 + kx) * cubic(fy, ky) * cubic(fx, kx);
                  }
                }
              }
              out[((b * c + ch) * oh + i) * ow + j] = static_cast<T>(v);
            }
          }
        }
      }
    }
  });
}

}  // namespace kiln::runtime::ops
