// Ops that repeat elements to a size known only at run time: Expand (broadcasting) and Tile.
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runExpand(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::vector<int64_t> shape = inputInts(ctx, 1, "shape");
  const Shape& in = x.shape();
  size_t rank = std::max(in.size(), shape.size());
  Shape out(rank);
  std::vector<int64_t> srcStride(rank, 0);
  std::vector<int64_t> inStrides = rowMajorStrides(in);
  for (size_t d = 0; d < rank; ++d) {
    int64_t a = d + in.size() >= rank ? in[d + in.size() - rank] : 1;
    int64_t b = d + shape.size() >= rank ? shape[d + shape.size() - rank] : 1;
    if (b < 0) fail(ctx, "shape ", listStr(shape), " has a negative dim");
    if (a != b && a != 1 && b != 1) {
      fail(ctx, "cannot expand ", describe(in, x.dtype()), " to ", listStr(shape), ": dims ", a,
           " and ", b, " do not broadcast");
    }
    out[d] = a == 1 ? b : a;
    if (d + in.size() >= rank && a != 1) srcStride[d] = inStrides[d + in.size() - rank];
  }
  NDArray y = ctx.output(0, out);
  gatherElements(x, y, [&](const std::vector<int64_t>& idx) {
    int64_t s = 0;
    for (size_t d = 0; d < idx.size(); ++d) s += idx[d] * srcStride[d];
    return s;
  });
}

void runTile(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::vector<int64_t> repeats = inputInts(ctx, 1, "repeats");
  const Shape& in = x.shape();
  if (repeats.size() != in.size()) {
    fail(ctx, "repeats ", listStr(repeats), " has ", repeats.size(), " entries for input ",
         describe(in, x.dtype()), "; expected one per dim (", in.size(), ")");
  }
  Shape out = in;
  for (size_t d = 0; d < in.size(); ++d) {
    if (repeats[d] < 0) fail(ctx, "repeats ", listStr(repeats), " has a negative entry");
    out[d] = in[d] * repeats[d];
  }
  NDArray y = ctx.output(0, out);
  std::vector<int64_t> strides = rowMajorStrides(in);
  gatherElements(x, y, [&](const std::vector<int64_t>& idx) {
    int64_t s = 0;
    for (size_t d = 0; d < idx.size(); ++d) s += (idx[d] % in[d]) * strides[d];
    return s;
  });
}

}  // namespace kiln::runtime::ops
