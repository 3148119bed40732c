// TopK: the K largest (or smallest) elements along an axis and their indices; K is an input.
#include <algorithm>
#include <numeric>

#include "context_view.h"
#include "kiln/opdef/reduce.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runTopK(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  ContextView view(ctx);
  auto d = static_cast<size_t>(opdef::topKAxis(view));
  Shape out = opdef::topKShape(view);  // as at compile time
  int64_t k = out[d];
  bool largest = attrInt(ctx, "largest", 1) != 0;
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
