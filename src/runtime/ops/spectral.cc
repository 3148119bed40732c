// Signal ops of opset 17: DFT (forward or inverse, one-sided or full, zero-padded or cut to
// dft_length), STFT (windowed frames, each transformed) and MelWeightMatrix, in double.
#include "kiln/opdef/spectral.h"

#include <cmath>

#include "context_view.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

constexpr double kPi = 3.14159265358979323846;

// BINS values of the transform of the N complex samples IN (re, im pairs, stride STRIDE pairs).
void transform(const double* in, int64_t stride, int64_t available, int64_t n, int64_t bins,
               bool inverse, double* out, int64_t outStride) {
  double sign = inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < bins; ++k) {
    double re = 0, im = 0;
    for (int64_t j = 0; j < std::min(n, available); ++j) {
      double a = sign * 2 * kPi * static_cast<double>(j * k % n) / static_cast<double>(n);
      double xr = in[j * stride * 2], xi = in[j * stride * 2 + 1];
      re += xr * std::cos(a) - xi * std::sin(a);
      im += xr * std::sin(a) + xi * std::cos(a);
    }
    if (inverse) {
      re /= static_cast<double>(n);
      im /= static_cast<double>(n);
    }
    out[k * outStride * 2] = re;
    out[k * outStride * 2 + 1] = im;
  }
}

// IN as complex pairs: a last dim of 1 (real) gets zero imaginary parts.
std::vector<double> complexOf(const RuntimeOpContext& ctx, const NDArray& a) {
  std::vector<double> v = toDoubles(ctx, a);
  if (a.shape().back() == 2) return v;
  std::vector<double> c(v.size() * 2, 0.0);
  for (size_t k = 0; k < v.size(); ++k) c[2 * k] = v[k];
  return c;
}

}  // namespace

void runDft(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  opdef::DftSpec spec = opdef::dftSpec(ContextView(ctx));  // as at compile time
  bool inverse = attrInt(ctx, "inverse", 0) != 0;
  size_t axis = spec.axis;
  int64_t n = spec.length, bins = spec.out[axis];
  const Shape& out = spec.out;
  std::vector<double> c = complexOf(ctx, x), y(static_cast<size_t>(shapeNumel(out)), 0.0);
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= in[d];
  for (size_t d = axis + 1; d + 1 < in.size(); ++d) inner *= in[d];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      transform(c.data() + (o * in[axis] * inner + i) * 2, inner, in[axis], n, bins, inverse,
                y.data() + (o * bins * inner + i) * 2, inner);
    }
  }
  NDArray ya = ctx.output(0, out);
  storeDoubles(ctx, ya, y);
}

void runStft(RuntimeOpContext& ctx) {
  const NDArray& signal = ctx.input(0);
  const Shape& in = signal.shape();
  opdef::StftSpec spec = opdef::stftSpec(ContextView(ctx));  // as at compile time
  std::vector<double> window =
      ctx.numInputs() > 2 && ctx.hasInput(2) ? toDoubles(ctx, ctx.input(2)) : std::vector<double>{};
  int64_t step = spec.step, length = spec.length, frames = spec.out[1], bins = spec.out[2];
  std::vector<double> c = complexOf(ctx, signal);
  std::vector<double> y(static_cast<size_t>(in[0] * frames * bins * 2));
  std::vector<double> frame(static_cast<size_t>(length * 2));
  for (int64_t b = 0; b < in[0]; ++b) {
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t j = 0; j < length; ++j) {
        double w = window.empty() ? 1.0 : window[static_cast<size_t>(j)];
        size_t src = static_cast<size_t>((b * in[1] + f * step + j) * 2);
        frame[static_cast<size_t>(2 * j)] = c[src] * w;
        frame[static_cast<size_t>(2 * j + 1)] = c[src + 1] * w;
      }
      transform(frame.data(), 1, length, length, bins, false,
                y.data() + (b * frames + f) * bins * 2, 1);
    }
  }
  NDArray ya = ctx.output(0, {in[0], frames, bins, 2});
  storeDoubles(ctx, ya, y);
}

void runMelWeightMatrix(RuntimeOpContext& ctx) {
  Shape shape = opdef::melWeightShape(ContextView(ctx));  // as at compile time
  int64_t spectrum = shape[0], mels = shape[1];
  int64_t dft = inputScalarInt(ctx, 1, "dft_length");
  int64_t rate = inputScalarInt(ctx, 2, "sample_rate");
  double low = inputScalarDouble(ctx, 3, "lower_edge_hertz");
  double high = inputScalarDouble(ctx, 4, "upper_edge_hertz");
  if (rate < 1) fail(ctx, "sample_rate is ", rate, "; expected >= 1");
  auto toMel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  double lowMel = toMel(low), stepMel = (toMel(high) - lowMel) / static_cast<double>(mels + 2);
  std::vector<int64_t> bins;
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hz = 700 * (std::pow(10, (static_cast<double>(i) * stepMel + lowMel) / 2595) - 1);
    bins.push_back(static_cast<int64_t>(
        std::floor(static_cast<double>(dft + 1) * hz / static_cast<double>(rate))));
  }
  std::vector<double> w(static_cast<size_t>(spectrum * mels), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double& {
    if (j < 0 || j >= spectrum) fail(ctx, "mel bin ", i, " reaches frequency bin ", j);
    return w[static_cast<size_t>(j * mels + i)];
  };
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = bins[static_cast<size_t>(i)], center = bins[static_cast<size_t>(i + 1)],
            right = bins[static_cast<size_t>(i + 2)];
    if (center == left) {
      at(center, i) = 1;
    } else {
      for (int64_t j = left; j <= center; ++j) {
        at(j, i) = static_cast<double>(j - left) / static_cast<double>(center - left);
      }
    }
    for (int64_t j = center; j < right; ++j) {
      at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - center);
    }
  }
  NDArray y = ctx.output(0, {spectrum, mels});
  storeDoubles(ctx, y, w);
}

}  // namespace kiln::runtime::ops
