// TopK: the K largest (or smallest) elements along an axis and their indices; K is an input.
#include <algorithm>
#include <numeric>

#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runTopK(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  int64_t axis = normalizeAxis(ctx, attrInt(ctx, "axis", -1), x.ndim());
  auto d = static_cast<size_t>(axis);
  int64_t k = hasAttr(ctx, "k") ? attrInt(ctx, "k", 0) : inputScalarInt(ctx, 1, "K");
  if (k < 0 || k > in[d]) {
    fail(ctx, "K is ", k, "; expected 0 to ", in[d], " (dim ", axis, " of ",
         describe(in, x.dtype()), ")");
  }
  bool largest = attrInt(ctx, "largest", 1) != 0;
  Shape out = in;
  out[d] = k;
  NDArray values = ctx.output(0, out);
  NDArray indices = ctx.output(1, out);
  AroundAxis around = aroundAxis(in, d);
  int64_t outer = around.outer, n = around.n, inner = around.inner;
  visitNumeric(ctx, x.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* src = static_cast<const T*>(x.data());
    T* dstV = static_cast<T*>(values.data());
    auto* dstI = indices.data<int64_t>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T* row = src + o * n * inner + i;
        std::iota(order.begin(), order.end(), 0);
        // Equal values keep the lower index first, as ONNX specifies.
        auto before = [&](int64_t a, int64_t b) {
          T va = row[a * inner], vb = row[b * inner];
          if (va != vb) return largest ? va > vb : va < vb;
          return a < b;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        for (int64_t j = 0; j < k; ++j) {
          int64_t at = o * k * inner + j * inner + i;
          dstV[at] = row[order[static_cast<size_t>(j)] * inner];
          dstI[at] = order[static_cast<size_t>(j)];
        }
      }
    }
  });
}

}  // namespace kiln::runtime::ops
