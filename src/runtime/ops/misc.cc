// Small ops without a compiled kernel: OneHot, EyeLike, Shrink, ReverseSequence and Det.
#include <cmath>

#include "context_view.h"
#include "kiln/opdef/index.h"
#include "kiln/opdef/matrix.h"
#include "kiln/opdef/sequence_axes.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runOneHot(RuntimeOpContext& ctx) {
  std::vector<int64_t> indices;
  const NDArray& ia = ctx.input(0);
  visitNumeric(ctx, ia.dtype(), [&](auto t) {
    const auto* p = static_cast<const decltype(t)*>(ia.data());
    for (int64_t e = 0; e < ia.numel(); ++e) {
      indices.push_back(toInt64(ctx, std::floor(static_cast<double>(p[e])), "an index"));
    }
  });
  const NDArray& values = ctx.input(2);
  if (values.numel() != 2) fail(ctx, "values has ", values.numel(), " elements; expected 2");
  ContextView view(ctx);
  auto axis = static_cast<size_t>(opdef::oneHotAxis(view));
  Shape out = opdef::oneHotShape(view);  // as at compile time
  int64_t depth = out[axis];
  NDArray y = ctx.output(0, out);
  AroundAxis around = aroundAxis(out, axis);
  size_t bytes = values.dtype().bytes();
  const auto* v = static_cast<const char*>(values.data());
  auto* dst = static_cast<char*>(y.data());
  for (int64_t o = 0; o < around.outer; ++o) {
    for (int64_t d = 0; d < depth; ++d) {
      for (int64_t i = 0; i < around.inner; ++i) {
        int64_t index = indices[static_cast<size_t>(o * around.inner + i)];
        if (index < 0) index += depth;
        bool on = index == d;
        std::memcpy(dst + static_cast<size_t>((o * depth + d) * around.inner + i) * bytes,
                    v + (on ? bytes : 0), bytes);
      }
    }
  }
}

void runEyeLike(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  NDArray y = ctx.output(0, opdef::eyeLikeShape(ContextView(ctx)));
  int64_t k = attrInt(ctx, "k", 0);
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  visitNumeric(ctx, y.dtype(), [&](auto t) {
    using T = decltype(t);
    T* out = static_cast<T*>(y.data());
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = static_cast<T>(c - r == k ? 1 : 0);
    }
  });
}

void runShrink(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  double lambd = attrFloat(ctx, "lambd", 0.5), bias = attrFloat(ctx, "bias", 0.0);
  NDArray y = ctx.output(0, x.shape());
  visitNumeric(ctx, x.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* in = static_cast<const T*>(x.data());
    T* out = static_cast<T*>(y.data());
    for (int64_t e = 0; e < x.numel(); ++e) {
      auto v = static_cast<double>(in[e]);
      out[e] = static_cast<T>(v < -lambd ? v + bias : v > lambd ? v - bias : 0.0);
    }
  });
}

void runReverseSequence(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::vector<int64_t> lens = inputInts(ctx, 1, "sequence_lens");
  opdef::TimeBatchAxes axes = opdef::reverseSequenceAxes(ContextView(ctx));
  size_t timeAxis = axes.time, batchAxis = axes.batch;
  const Shape& shape = x.shape();
  NDArray y = ctx.output(0, shape);
  std::vector<int64_t> strides = rowMajorStrides(shape);
  gatherElements(x, y, [&](const std::vector<int64_t>& idx) {
    int64_t len = lens[static_cast<size_t>(idx[batchAxis])];
    int64_t s = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      int64_t i = idx[d];
      if (d == timeAxis && i < len) i = len - 1 - i;
      s += i * strides[d];
    }
    return s;
  });
}

// The determinant of each trailing square matrix, by LU decomposition with partial pivoting.
void runDet(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& shape = x.shape();
  NDArray y = ctx.output(0, opdef::detShape(ContextView(ctx)));  // as at compile time
  int64_t m = shape.back();
  visitNumeric(ctx, x.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (!std::is_floating_point_v<T>) {
      fail(ctx, "Det needs a float input");
    } else {
      const T* in = static_cast<const T*>(x.data());
      T* out = static_cast<T*>(y.data());
      std::vector<double> a(static_cast<size_t>(m * m));
      for (int64_t b = 0; b < y.numel(); ++b) {
        for (int64_t e = 0; e < m * m; ++e) a[e] = static_cast<double>(in[b * m * m + e]);
        double det = 1;
        for (int64_t c = 0; c < m && det != 0; ++c) {
          int64_t pivot = c;
          for (int64_t r = c + 1; r < m; ++r) {
            if (std::fabs(a[r * m + c]) > std::fabs(a[pivot * m + c])) pivot = r;
          }
          if (a[pivot * m + c] == 0) {
            det = 0;
            break;
          }
          if (pivot != c) {
            for (int64_t j = 0; j < m; ++j) std::swap(a[c * m + j], a[pivot * m + j]);
            det = -det;
          }
          det *= a[c * m + c];
          for (int64_t r = c + 1; r < m; ++r) {
            double f = a[r * m + c] / a[c * m + c];
            for (int64_t j = c; j < m; ++j) a[r * m + j] -= f * a[c * m + j];
          }
        }
        out[b] = static_cast<T>(det);
      }
    }
  });
}

}  // namespace kiln::runtime::ops
