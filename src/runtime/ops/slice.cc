// Slice with starts, ends, axes or steps known only at run time: a strided copy.
#include <algorithm>

#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

std::vector<int64_t> sliceArg(RuntimeOpContext& ctx, size_t input, const char* attr) {
  if (hasAttr(ctx, attr)) return attrInts(ctx, attr);  // opset 1
  if (ctx.numInputs() > input && ctx.hasInput(input)) return inputInts(ctx, input, attr);
  return {};
}

}  // namespace

void runSlice(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  auto rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts = sliceArg(ctx, 1, "starts");
  std::vector<int64_t> ends = sliceArg(ctx, 2, "ends");
  std::vector<int64_t> axes = sliceArg(ctx, 3, "axes");
  std::vector<int64_t> steps = sliceArg(ctx, 4, "steps");
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    fail(ctx, "starts ", listStr(starts), ", ends ", listStr(ends), ", axes ", listStr(axes),
         " and steps ", listStr(steps), " differ in length");
  }
  std::vector<int64_t> begin(in.size(), 0), step(in.size(), 1);
  Shape out = in;
  std::vector<bool> seen(in.size(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    auto d = static_cast<size_t>(normalizeAxis(ctx, axes[i], rank, "axes"));
    if (seen[d]) fail(ctx, "axes ", listStr(axes), " name axis ", d, " twice");
    seen[d] = true;
    int64_t dim = in[d];
    int64_t s = steps[i];
    if (s == 0) fail(ctx, "steps ", listStr(steps), " has a 0");
    int64_t b = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (s > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    int64_t n = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / (-s);
    out[d] = std::max<int64_t>(0, n);
    begin[d] = b;
    step[d] = s;
  }
  NDArray y = ctx.output(0, out);
  std::vector<int64_t> strides = rowMajorStrides(in);
  gatherElements(x, y, [&](const std::vector<int64_t>& idx) {
    int64_t s = 0;
    for (size_t d = 0; d < idx.size(); ++d) s += (begin[d] + idx[d] * step[d]) * strides[d];
    return s;
  });
}

}  // namespace kiln::runtime::ops
