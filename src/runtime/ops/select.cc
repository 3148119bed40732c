// Ops whose output size depends on the data: NonZero (indices of non-zero elements) and Compress
// (the slices a boolean condition selects).
#include "context_view.h"
#include "kiln/opdef/sequence_axes.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runNonZero(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::vector<int64_t> hits;
  visitNumeric(ctx, x.dtype(), [&](auto t) {
    const auto* p = static_cast<const decltype(t)*>(x.data());
    for (int64_t e = 0; e < x.numel(); ++e) {
      if (p[e] != decltype(t){}) hits.push_back(e);
    }
  });
  const Shape& in = x.shape();
  auto count = static_cast<int64_t>(hits.size());
  NDArray y = ctx.output(0, {static_cast<int64_t>(in.size()), count});
  auto* out = y.data<int64_t>();
  std::vector<int64_t> strides = rowMajorStrides(in);
  for (int64_t k = 0; k < count; ++k) {
    for (size_t d = 0; d < in.size(); ++d) {
      out[static_cast<int64_t>(d) * count + k] = hits[static_cast<size_t>(k)] / strides[d] % in[d];
    }
  }
}

void runCompress(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const NDArray& cond = ctx.input(1);
  if (cond.dtype() != DataType::boolean() || cond.ndim() != 1) {
    fail(ctx, "condition is ", describe(cond.shape(), cond.dtype()), "; expected 1-D bool");
  }
  std::optional<int64_t> along = opdef::selectionAxis(ContextView(ctx));  // as at compile time
  Shape in = along ? x.shape() : Shape{x.numel()};
  int64_t axis = along ? *along : 0;
  auto d = static_cast<size_t>(axis);
  std::vector<int64_t> keep;
  const auto* c = cond.data<bool>();
  for (int64_t i = 0; i < cond.numel(); ++i) {
    if (!c[i]) continue;
    if (i >= in[d]) {
      fail(ctx, "condition selects index ", i, " of axis ", axis, ", which has size ", in[d]);
    }
    keep.push_back(i);
  }
  takeSlices(ctx, x, in, d, keep);
}

}  // namespace kiln::runtime::ops
