// Resize (and Upsample, its opset 7-9 form): nearest, linear and cubic interpolation with every
// coordinate transformation mode of ONNX, as the ONNX reference computes it: for each output
// element and each dim, the N input positions nearest the transformed coordinate (edge values
// past the border) and their weights; the element is the weighted sum over all dims' positions.
#include "kiln/opdef/resize.h"

#include <algorithm>
#include <cmath>

#include "context_view.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

struct Settings {
  std::string mode, transform, nearestMode;
  double cubicA = -0.75;
  bool excludeOutside = false;
  double extrapolation = 0.0;
};

// Per dim: the input positions an output coordinate reads and their weights (-1: extrapolate).
struct Taps {
  std::vector<int64_t> index;
  std::vector<double> weight;
  bool outside = false;
};

std::vector<double> weightsFor(const Settings& s, double ratio, bool integral) {
  if (s.mode == "nearest") {
    if (integral) return {0, 1};
    if (s.nearestMode == "round_prefer_ceil")
      return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
    if (s.nearestMode == "floor") return {1, 0};
    if (s.nearestMode == "ceil") return {0, 1};
    return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};  // round_prefer_floor
  }
  if (s.mode == "linear") return {1 - ratio, ratio};
  double a = s.cubicA, r = ratio, q = 1 - ratio;
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1, ((a + 2) * q - (a + 3)) * q * q + 1,
          ((a * (q + 1) - 5 * a) * (q + 1) + 8 * a) * (q + 1) - 4 * a};
}

// Where output position X of a dim (input size IN, output width OUT = scale * IN) reads from.
double sourceCoordinate(const Settings& s, double x, double scale, int64_t in, double out,
                        double roiStart, double roiEnd) {
  const std::string& t = s.transform;
  if (t == "align_corners") return out == 1 ? 0 : x * static_cast<double>(in - 1) / (out - 1);
  if (t == "asymmetric") return x / scale;
  if (t == "tf_crop_and_resize") {
    double span = (roiEnd - roiStart) * static_cast<double>(in - 1);
    return roiStart * static_cast<double>(in - 1) + (out == 1 ? span / 2 : x * span / (out - 1));
  }
  if (t == "pytorch_half_pixel") return out == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (t == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  return (x + 0.5) / scale - 0.5;  // half_pixel
}

Taps tapsFor(const Settings& s, double x, double scale, int64_t in, double roiStart,
             double roiEnd) {
  Taps taps;
  double out = scale * static_cast<double>(in);
  double src = sourceCoordinate(s, x, scale, in, out, roiStart, roiEnd);
  if (!std::isfinite(src)) src = 0;  // a 0/0 scale of an empty dim
  if (s.transform == "tf_crop_and_resize" && (src < 0 || src > static_cast<double>(in - 1))) {
    taps.outside = true;
    return taps;
  }
  double base = std::floor(src);
  bool integral = src == base;
  taps.weight = weightsFor(s, integral ? 1.0 : src - base, integral);
  // The N positions nearest SRC (ties: the lower), among the input edge-padded by ceil(N/2).
  auto n = static_cast<int64_t>(taps.weight.size());
  int64_t pad = (n + 1) / 2;
  int64_t limit = in + 2 * pad;
  // Far past the border every tap is the edge; clamping keeps the index arithmetic in range.
  double xp = std::clamp(src, -1.0e9, 1.0e9) + static_cast<double>(pad);
  auto fl = static_cast<int64_t>(std::floor(xp));
  int64_t lo = std::max<int64_t>(0, std::min(limit - 1, fl) - n);
  int64_t hi = std::min(limit - 1, std::max<int64_t>(0, fl) + n);
  std::vector<int64_t> candidates;
  for (int64_t i = lo; i <= hi; ++i) candidates.push_back(i);
  std::sort(candidates.begin(), candidates.end(), [&](int64_t a, int64_t b) {
    double da = std::fabs(xp - static_cast<double>(a)), db = std::fabs(xp - static_cast<double>(b));
    return da != db ? da < db : a < b;
  });
  candidates.resize(
      static_cast<size_t>(std::min<int64_t>(n, static_cast<int64_t>(candidates.size()))));
  std::sort(candidates.begin(), candidates.end());
  double sum = 0;
  for (size_t k = 0; k < candidates.size(); ++k) {
    int64_t original = candidates[k] - pad;  // may lie past the border
    if (s.excludeOutside && (original < 0 || original >= in)) taps.weight[k] = 0;
    sum += taps.weight[k];
    taps.index.push_back(std::clamp<int64_t>(original, 0, in - 1));  // edge padding
  }
  if (s.excludeOutside && sum != 0) {
    for (double& w : taps.weight) w /= sum;
  }
  return taps;
}

// LEGACY (Upsample, Resize-10): the output position over the scale, rounded down.
Settings settingsOf(const RuntimeOpContext& ctx, bool legacy) {
  Settings s;
  s.mode = attrString(ctx, "mode", "nearest");
  if (s.mode != "nearest" && s.mode != "linear" && s.mode != "cubic") {
    fail(ctx, "mode '", s.mode, "' is not known; expected nearest, linear or cubic");
  }
  s.transform = attrString(ctx, "coordinate_transformation_mode", "half_pixel");
  s.nearestMode = attrString(ctx, "nearest_mode", "round_prefer_floor");
  if (legacy) {
    s.transform = "asymmetric";
    s.nearestMode = "floor";
  }
  s.cubicA = attrFloat(ctx, "cubic_coeff_a", -0.75);
  s.excludeOutside = attrInt(ctx, "exclude_outside", 0) != 0;
  s.extrapolation = attrFloat(ctx, "extrapolation_value", 0.0);
  return s;
}

}  // namespace

void runResize(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  size_t rank = in.size();
  opdef::ResizeGeometry g = opdef::resizeGeometry(ContextView(ctx));
  Settings s = settingsOf(ctx, g.legacyPositions);
  const Shape& out = g.out;
  const std::vector<double>& scale = g.scale;
  const std::vector<double>& roi = g.roi;
  std::vector<std::vector<Taps>> taps(rank);
  for (size_t d = 0; d < rank; ++d) {
    for (int64_t i = 0; i < out[d]; ++i) {
      taps[d].push_back(tapsFor(s, static_cast<double>(i), scale[d], in[d], roi[d], roi[d + rank]));
    }
  }
  NDArray y = ctx.output(0, out);
  std::vector<int64_t> strides = rowMajorStrides(in);
  visitNumeric(ctx, x.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) {
      fail(ctx, "bool is not a Resize type");
    } else {
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      std::vector<int64_t> idx(rank, 0);
      std::vector<size_t> tap(rank, 0);
      for (int64_t e = 0; e < y.numel(); ++e) {
        bool outside = false;
        for (size_t d = 0; d < rank; ++d) outside = outside || taps[d][idx[d]].outside;
        double value = s.extrapolation;
        if (!outside) {
          // The weighted sum over every combination of the dims' taps.
          value = 0;
          std::fill(tap.begin(), tap.end(), 0);
          while (true) {
            double w = 1;
            int64_t offset = 0;
            for (size_t d = 0; d < rank; ++d) {
              const Taps& td = taps[d][static_cast<size_t>(idx[d])];
              w *= td.weight[tap[d]];
              offset += td.index[tap[d]] * strides[d];
            }
            if (w != 0) value += w * static_cast<double>(src[offset]);
            size_t d = rank;
            while (d-- > 0) {
              if (++tap[d] < taps[d][static_cast<size_t>(idx[d])].index.size()) break;
              tap[d] = 0;
            }
            if (d == static_cast<size_t>(-1)) break;
          }
        }
        if constexpr (std::is_integral_v<T>) {
          dst[e] = static_cast<T>(std::nearbyint(value));
        } else {
          dst[e] = static_cast<T>(value);
        }
        for (size_t d = rank; d-- > 0;) {
          if (++idx[d] < out[d]) break;
          idx[d] = 0;
        }
      }
    }
  });
}

}  // namespace kiln::runtime::ops
