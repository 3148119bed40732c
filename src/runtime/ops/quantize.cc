// Quantization: QuantizeLinear and DequantizeLinear (per tensor or per axis), and the integer
// products MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv, accumulated exactly in
// int32 (int64 here) from zero-point-shifted integers.
#include <cmath>
#include <limits>

#include "context_view.h"
#include "conv_sums.h"
#include "kiln/opdef/matmul.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

// Input I as doubles, or {0} when omitted (a zero point).
std::vector<double> optionalDoubles(const RuntimeOpContext& ctx, size_t i) {
  if (ctx.numInputs() <= i || !ctx.hasInput(i)) return {0.0};
  return toDoubles(ctx, ctx.input(i));
}

// The per-element parameter index along AXIS for per-axis scales and zero points (0 per tensor).
int64_t paramIndex(const std::vector<int64_t>& idx, size_t axis, size_t count) {
  return count == 1 ? 0 : idx[axis];
}

// round-half-to-even, then clamped to the range of the output type.
template <typename T>
T saturate(double v) {
  double r = std::nearbyint(v);
  r = std::min<double>(std::max<double>(r, std::numeric_limits<T>::min()),
                       std::numeric_limits<T>::max());
  return static_cast<T>(r);
}

void storeSaturated(const RuntimeOpContext& ctx, NDArray& y, int64_t e, double v) {
  DataType t = y.dtype();
  if (t == DataType::uint8()) {
    y.data<uint8_t>()[e] = saturate<uint8_t>(v);
  } else if (t == DataType::int8()) {
    y.data<int8_t>()[e] = saturate<int8_t>(v);
  } else if (t == DataType::int32()) {
    y.data<int32_t>()[e] = saturate<int32_t>(v);
  } else {
    fail(ctx, "output type ", t.str(), " is not a quantized type; expected uint8, int8 or int32");
  }
}

// Per-axis parameters: AXIS of X's rank, and a check that they have one value per channel.
size_t checkedAxis(const RuntimeOpContext& ctx, const NDArray& x, size_t count) {
  int64_t axis = attrInt(ctx, "axis", 1);
  if (count == 1) return 0;
  auto a = static_cast<size_t>(normalizeAxis(ctx, axis, x.ndim()));
  if (static_cast<int64_t>(count) != x.shape()[a]) {
    fail(ctx, "scale has ", count, " values; expected 1 or ", x.shape()[a], " (dim ", a, ")");
  }
  return a;
}

// numpy matmul of integers A - A_ZP and B - B_ZP (zero points per tensor, per row of A or per
// column of B), exactly; CALLS F(output element, sum).
template <typename F>
Shape matmulInteger(const RuntimeOpContext& ctx, size_t ia, size_t ib,
                    const std::vector<double>& azp, const std::vector<double>& bzp, F store) {
  Shape out = opdef::knownDims(opdef::matmulShape(ContextView(ctx), ia, ib));  // as at compile time
  const NDArray& a = ctx.input(ia);
  const NDArray& b = ctx.input(ib);
  Shape as = a.shape(), bs = b.shape();
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  size_t rank = std::max(ab.size(), bb.size());
  Shape batch(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(rank));
  std::vector<double> av = toDoubles(ctx, a), bv = toDoubles(ctx, b);
  int64_t e = 0;
  forEachIndex(batch, [&](int64_t, const std::vector<int64_t>& bi) {
    int64_t aOff = 0, bOff = 0, aStride = m * k, bStride = k * n;
    for (size_t d = 0; d < rank; ++d) {
      int64_t x = d + ab.size() >= rank ? ab[d + ab.size() - rank] : 1;
      int64_t y = d + bb.size() >= rank ? bb[d + bb.size() - rank] : 1;
      aOff = aOff * x + (x == 1 ? 0 : bi[d]);
      bOff = bOff * y + (y == 1 ? 0 : bi[d]);
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double za = azp[azp.size() == 1 ? 0 : static_cast<size_t>(i)];
        double zb = bzp[bzp.size() == 1 ? 0 : static_cast<size_t>(j)];
        double sum = 0;
        for (int64_t q = 0; q < k; ++q) {
          sum += (av[static_cast<size_t>(aOff * aStride + i * k + q)] - za) *
                 (bv[static_cast<size_t>(bOff * bStride + q * n + j)] - zb);
        }
        store(e++, sum, i, j);
      }
    }
  });
  return out;
}

}  // namespace

void runQuantizeLinear(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::vector<double> scale = toDoubles(ctx, ctx.input(1)), zp = optionalDoubles(ctx, 2);
  size_t axis = checkedAxis(ctx, x, scale.size());
  NDArray y = ctx.output(0, x.shape());
  std::vector<double> xv = toDoubles(ctx, x);
  bool single = x.dtype() == DataType::float32();  // divide in float32, as ONNX Runtime does
  forEachIndex(x.shape(), [&](int64_t e, const std::vector<int64_t>& idx) {
    auto p = static_cast<size_t>(paramIndex(idx, axis, scale.size()));
    double z = zp[zp.size() == 1 ? 0 : p];
    double v = xv[static_cast<size_t>(e)];
    double q = single ? std::nearbyint(static_cast<float>(v) / static_cast<float>(scale[p]))
                      : std::nearbyint(v / scale[p]);
    storeSaturated(ctx, y, e, q + z);
  });
}

void runDequantizeLinear(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::vector<double> scale = toDoubles(ctx, ctx.input(1)), zp = optionalDoubles(ctx, 2);
  size_t axis = checkedAxis(ctx, x, scale.size());
  NDArray y = ctx.output(0, x.shape());
  std::vector<double> xv = toDoubles(ctx, x);
  forEachIndex(x.shape(), [&](int64_t e, const std::vector<int64_t>& idx) {
    auto p = static_cast<size_t>(paramIndex(idx, axis, scale.size()));
    double z = zp[zp.size() == 1 ? 0 : p];
    y.data<float>()[e] = static_cast<float>((xv[static_cast<size_t>(e)] - z) * scale[p]);
  });
}

void runMatMulInteger(RuntimeOpContext& ctx) {
  std::vector<double> sums;
  Shape out = matmulInteger(ctx, 0, 1, optionalDoubles(ctx, 2), optionalDoubles(ctx, 3),
                            [&](int64_t, double s, int64_t, int64_t) { sums.push_back(s); });
  NDArray y = ctx.output(0, out);
  for (size_t e = 0; e < sums.size(); ++e) y.data<int32_t>()[e] = static_cast<int32_t>(sums[e]);
}

// y = saturate(round((a - a_zp)(b - b_zp) * a_scale * b_scale / y_scale) + y_zp).
void runQLinearMatMul(RuntimeOpContext& ctx) {
  std::vector<double> as = toDoubles(ctx, ctx.input(1)), bs = toDoubles(ctx, ctx.input(4)),
                      ys = toDoubles(ctx, ctx.input(6)), yzp = toDoubles(ctx, ctx.input(7));
  std::vector<std::pair<int64_t, double>> values;
  Shape out = matmulInteger(ctx, 0, 3, toDoubles(ctx, ctx.input(2)), toDoubles(ctx, ctx.input(5)),
                            [&](int64_t e, double s, int64_t i, int64_t j) {
                              double sa = as[as.size() == 1 ? 0 : static_cast<size_t>(i)];
                              double sb = bs[bs.size() == 1 ? 0 : static_cast<size_t>(j)];
                              values.emplace_back(e, s * sa * sb / ys[0] + yzp[0]);
                            });
  NDArray y = ctx.output(0, out);
  for (const auto& [e, v] : values) storeSaturated(ctx, y, e, v);
}

void runConvInteger(RuntimeOpContext& ctx) {
  ConvSums r =
      convSums(ctx, ctx.input(0), ctx.input(1), optionalDoubles(ctx, 2), optionalDoubles(ctx, 3));
  NDArray y = ctx.output(0, r.shape);
  for (size_t e = 0; e < r.sums.size(); ++e) y.data<int32_t>()[e] = static_cast<int32_t>(r.sums[e]);
}

// QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B int32]).
void runQLinearConv(RuntimeOpContext& ctx) {
  std::vector<double> xs = toDoubles(ctx, ctx.input(1)), ws = toDoubles(ctx, ctx.input(4)),
                      ys = toDoubles(ctx, ctx.input(6)), yzp = toDoubles(ctx, ctx.input(7));
  ConvSums r = convSums(ctx, ctx.input(0), ctx.input(3), toDoubles(ctx, ctx.input(2)),
                        toDoubles(ctx, ctx.input(5)));
  std::vector<double> bias =
      ctx.numInputs() > 8 && ctx.hasInput(8) ? toDoubles(ctx, ctx.input(8)) : std::vector<double>{};
  NDArray y = ctx.output(0, r.shape);
  int64_t oc = r.shape[1], inner = shapeNumel(r.shape) / (r.shape[0] * oc);
  for (size_t e = 0; e < r.sums.size(); ++e) {
    auto o = static_cast<size_t>(static_cast<int64_t>(e) / inner % oc);
    double sum = r.sums[e] + (bias.empty() ? 0.0 : bias[o]);
    double sw = ws[ws.size() == 1 ? 0 : o];
    storeSaturated(ctx, y, static_cast<int64_t>(e), sum * xs[0] * sw / ys[0] + yzp[0]);
  }
}

}  // namespace kiln::runtime::ops
