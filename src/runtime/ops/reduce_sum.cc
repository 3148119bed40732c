// ReduceSum whose axes are an input value (opset 13): sums over those axes.
#include "context_view.h"
#include "kiln/opdef/reduce.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runReduceSum(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  ContextView view(ctx);
  std::vector<bool> reduced = *opdef::reducedDims(view);  // known: every input is, at run time
  Shape kept = in;                                        // the output shape with reduced dims as 1
  for (size_t d = 0; d < in.size(); ++d) {
    if (reduced[d]) kept[d] = 1;
  }
  NDArray y = ctx.output(0, opdef::knownDims(opdef::reduceShape(view)));  // as at compile time
  std::vector<int64_t> outStrides = rowMajorStrides(kept);
  visitNumeric(ctx, x.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) {
      fail(ctx, "bool is not a ReduceSum type");
    } else {
      using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
      std::vector<Acc> acc(static_cast<size_t>(y.numel()), Acc{});
      const T* src = static_cast<const T*>(x.data());
      std::vector<int64_t> idx(in.size(), 0);
      for (int64_t e = 0; e < x.numel(); ++e) {
        int64_t o = 0;
        for (size_t d = 0; d < in.size(); ++d) o += (reduced[d] ? 0 : idx[d]) * outStrides[d];
        acc[static_cast<size_t>(o)] += src[e];
        for (size_t d = in.size(); d-- > 0;) {
          if (++idx[d] < in[d]) break;
          idx[d] = 0;
        }
      }
      T* dst = static_cast<T*>(y.data());
      for (size_t i = 0; i < acc.size(); ++i) dst[i] = static_cast<T>(acc[i]);
    }
  });
}

}  // namespace kiln::runtime::ops
