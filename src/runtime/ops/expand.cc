// Ops that repeat elements to a size known only at run time: Expand (broadcasting) and Tile.
#include "context_view.h"
#include "kiln/opdef/broadcast.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

// The output shapes are src/opdef's rules, as at compile time.
void runExpand(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  Shape out = opdef::knownDims(opdef::expandShape(ContextView(ctx)));
  const Shape& in = x.shape();
  size_t lead = out.size() - in.size();
  std::vector<int64_t> srcStride(out.size(), 0);  // 0 along the dims X repeats
  std::vector<int64_t> inStrides = rowMajorStrides(in);
  for (size_t d = 0; d < in.size(); ++d) srcStride[lead + d] = in[d] == 1 ? 0 : inStrides[d];
  NDArray y = ctx.output(0, out);
  gatherElements(x, y, [&](const std::vector<int64_t>& idx) {
    int64_t s = 0;
    for (size_t d = 0; d < idx.size(); ++d) s += idx[d] * srcStride[d];
    return s;
  });
}

void runTile(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  NDArray y = ctx.output(0, opdef::tileShape(ContextView(ctx)));
  std::vector<int64_t> strides = rowMajorStrides(in);
  gatherElements(x, y, [&](const std::vector<int64_t>& idx) {
    int64_t s = 0;
    for (size_t d = 0; d < idx.size(); ++d) s += (idx[d] % in[d]) * strides[d];
    return s;
  });
}

}  // namespace kiln::runtime::ops
