// CumSum whose axis is an input value: running sums along that axis, optionally exclusive or
// from the end.
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runCumSum(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  auto d = static_cast<size_t>(normalizeAxis(ctx, inputScalarInt(ctx, 1, "axis"), x.ndim()));
  bool exclusive = attrInt(ctx, "exclusive", 0) != 0;
  bool reverse = attrInt(ctx, "reverse", 0) != 0;
  NDArray y = ctx.output(0, in);
  AroundAxis around = aroundAxis(in, d);
  int64_t outer = around.outer, n = around.n, inner = around.inner;
  visitNumeric(ctx, x.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) {
      fail(ctx, "bool is not a CumSum type");
    } else {
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          T sum{};
          for (int64_t s = 0; s < n; ++s) {
            int64_t j = reverse ? n - 1 - s : s;
            int64_t at = (o * n + j) * inner + i;
            if (exclusive) {
              dst[at] = sum;
              sum = static_cast<T>(sum + src[at]);
            } else {
              sum = static_cast<T>(sum + src[at]);
              dst[at] = sum;
            }
          }
        }
      }
    }
  });
}

}  // namespace kiln::runtime::ops
