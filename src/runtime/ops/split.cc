// Split with sizes known only at run time (the split input, or a shape known at run time).
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runSplit(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  int64_t axis = normalizeAxis(ctx, attrInt(ctx, "axis", 0), static_cast<int64_t>(in.size()));
  auto d = static_cast<size_t>(axis);
  size_t n = ctx.numOutputs();
  std::vector<int64_t> split = hasAttr(ctx, "split") ? attrInts(ctx, "split")
                               : (ctx.numInputs() > 1 && ctx.hasInput(1))
                                   ? inputInts(ctx, 1, "split")
                                   : std::vector<int64_t>{};
  if (split.empty()) {
    if (in[d] % static_cast<int64_t>(n) != 0) {
      fail(ctx, "cannot split dim ", axis, " of ", describe(in, x.dtype()), " into ", n,
           " equal parts");
    }
    split.assign(n, in[d] / static_cast<int64_t>(n));
  }
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0) fail(ctx, "split ", listStr(split), " has a negative size");
    total += s;
  }
  if (split.size() != n || total != in[d]) {
    fail(ctx, "split ", listStr(split), " does not cut dim ", axis, " of ", describe(in, x.dtype()),
         " (size ", in[d], ") into ", n, " parts");
  }
  std::vector<int64_t> strides = rowMajorStrides(in);
  int64_t offset = 0;
  for (size_t o = 0; o < n; ++o) {
    Shape shape = in;
    shape[d] = split[o];
    NDArray y = ctx.output(o, shape);
    gatherElements(x, y, [&](const std::vector<int64_t>& idx) {
      int64_t s = offset * strides[d];
      for (size_t k = 0; k < idx.size(); ++k) s += idx[k] * strides[k];
      return s;
    });
    offset += split[o];
  }
}

}  // namespace kiln::runtime::ops
