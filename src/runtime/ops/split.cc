// Split with sizes known only at run time (the split input, or a shape known at run time).
#include "kiln/opdef/split.h"

#include "context_view.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

// The parts are src/opdef's rule, as at compile time.
void runSplit(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  ContextView view(ctx);
  auto d = static_cast<size_t>(opdef::splitAxis(view));
  std::vector<opdef::Dims> shapes;
  for (const opdef::DimList& dims : opdef::splitShapes(view))
    shapes.push_back(opdef::knownDims(dims));
  std::vector<int64_t> strides = rowMajorStrides(x.shape());
  int64_t offset = 0;
  for (size_t o = 0; o < shapes.size(); ++o) {
    NDArray y = ctx.output(o, shapes[o]);
    gatherElements(x, y, [&](const std::vector<int64_t>& idx) {
      int64_t s = offset * strides[d];
      for (size_t k = 0; k < idx.size(); ++k) s += idx[k] * strides[k];
      return s;
    });
    offset += shapes[o][d];
  }
}

}  // namespace kiln::runtime::ops
