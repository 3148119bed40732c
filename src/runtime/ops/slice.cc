// Slice with starts, ends, axes or steps known only at run time: src/opdef's ranges, then a
// strided copy.
#include "kiln/opdef/slice.h"

#include "context_view.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runSlice(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::vector<opdef::SliceRange> ranges = opdef::sliceRanges(ContextView(ctx));
  NDArray y = ctx.output(0, opdef::sliceShape(ranges));
  std::vector<int64_t> strides = rowMajorStrides(x.shape());
  gatherElements(x, y, [&](const std::vector<int64_t>& idx) {
    int64_t s = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      s += (ranges[d].start + idx[d] * ranges[d].step) * strides[d];
    }
    return s;
  });
}

}  // namespace kiln::runtime::ops
