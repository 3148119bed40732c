// Small ops without a compiled kernel: OneHot, EyeLike, Shrink, ReverseSequence and Det.
#include <cmath>

#include "context_view.h"
#include "kiln/opdef/index.h"
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
  if (x.ndim() != 2) fail(ctx, "input is ", describe(x.shape(), x.dtype()), "; expected 2-D");
  NDArray y = ctx.output(0, x.shape());
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
  auto timeAxis = static_cast<size_t>(attrInt(ctx, "time_axis", 0));
  auto batchAxis = static_cast<size_t>(attrInt(ctx, "batch_axis", 1));
  const Shape& shape = x.shape();
  if (x.ndim() < 2 || timeAxis > 1 || batchAxis > 1 || timeAxis == batchAxis) {
    fail(ctx, "time_axis ", timeAxis, " and batch_axis ", batchAxis, " of input ", shapeStr(shape),
         "; expected 0 and 1 in some order, on a rank of at least 2");
  }
  if (static_cast<int64_t>(lens.size()) != shape[batchAxis]) {
    fail(ctx, "sequence_lens has ", lens.size(), " entries; expected the batch size ",
         shape[batchAxis]);
  }
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
  if (x.ndim() < 2 || shape[shape.size() - 1] != shape[shape.size() - 2]) {
    fail(ctx, "input is ", describe(shape, x.dtype()), "; expected [..., M, M]");
  }
  int64_t m = shape.back();
  NDArray y = ctx.output(0, Shape(shape.begin(), shape.end() - 2));
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
