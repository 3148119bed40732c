// BatchNormalization in training mode: normalises with the batch's own mean and (population)
// variance per channel, and outputs the running statistics updated with them by `momentum`.
#include <cmath>

#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

void store(RuntimeOpContext& ctx, size_t output, const Shape& shape, const std::vector<double>& v) {
  if (ctx.numOutputs() <= output) return;
  NDArray y = ctx.output(output, shape);
  storeDoubles(ctx, y, v);
}

}  // namespace

void runBatchNormalization(RuntimeOpContext& ctx) {
  const NDArray& xa = ctx.input(0);
  const Shape& shape = xa.shape();
  if (shape.size() < 2) fail(ctx, "X is ", shapeStr(shape), "; expected N and C dims");
  int64_t c = shape[1], n = shape[0], inner = 1;
  for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
  std::vector<double> x = toDoubles(ctx, xa), scale = toDoubles(ctx, ctx.input(1)),
                      bias = toDoubles(ctx, ctx.input(2)), mean = toDoubles(ctx, ctx.input(3)),
                      var = toDoubles(ctx, ctx.input(4));
  double eps = attrFloat(ctx, "epsilon", 1e-5), momentum = attrFloat(ctx, "momentum", 0.9);
  bool training = attrInt(ctx, "training_mode", 0) != 0;
  std::vector<double> y(x.size()), runMean(static_cast<size_t>(c)), runVar(runMean.size());
  auto at = [&](int64_t b, int64_t ch, int64_t i) {
    return static_cast<size_t>((b * c + ch) * inner + i);
  };
  for (int64_t ch = 0; ch < c; ++ch) {
    double m = mean[static_cast<size_t>(ch)], v = var[static_cast<size_t>(ch)];
    if (training) {
      double sum = 0, count = static_cast<double>(n * inner);
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t i = 0; i < inner; ++i) sum += x[at(b, ch, i)];
      }
      m = sum / count;
      double sq = 0;
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t i = 0; i < inner; ++i) sq += (x[at(b, ch, i)] - m) * (x[at(b, ch, i)] - m);
      }
      v = sq / count;
    }
    auto k = static_cast<size_t>(ch);
    runMean[k] = mean[k] * momentum + m * (1 - momentum);
    runVar[k] = var[k] * momentum + v * (1 - momentum);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t i = 0; i < inner; ++i) {
        y[at(b, ch, i)] = (x[at(b, ch, i)] - m) / std::sqrt(v + eps) * scale[k] + bias[k];
      }
    }
  }
  store(ctx, 0, shape, y);
  store(ctx, 1, {c}, runMean);
  store(ctx, 2, {c}, runVar);
}

}  // namespace kiln::runtime::ops
