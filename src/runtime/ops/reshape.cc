// Ops that give the same elements a new shape (Reshape, Squeeze, Unsqueeze, Flatten, Identity)
// and ops that describe a shape (Shape, Size), on tensors whose shapes are known at run time.
#include <algorithm>

#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

void copyAs(RuntimeOpContext& ctx, const Shape& shape) {
  const NDArray& x = ctx.input(0);
  NDArray out = ctx.output(0, shape);
  out.copyFrom(x.view(shape, x.dtype()));  // x is compact: the same elements in SHAPE
}

// Optional axes: attribute (older opsets) or input 1.
std::vector<int64_t> axesOf(const RuntimeOpContext& ctx, bool* given) {
  *given = true;
  if (hasAttr(ctx, "axes")) return attrInts(ctx, "axes");
  if (ctx.numInputs() > 1 && ctx.hasInput(1)) return inputInts(ctx, 1, "axes");
  *given = false;
  return {};
}

}  // namespace

void runReshape(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::vector<int64_t> target =
      hasAttr(ctx, "shape") ? attrInts(ctx, "shape") : inputInts(ctx, 1, "shape");
  bool allowZero = attrInt(ctx, "allowzero", 0) != 0;
  Shape out(target.size());
  int64_t inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t v = target[i];
    if (v == -1) {
      if (inferred >= 0) fail(ctx, "shape ", listStr(target), " has more than one -1");
      inferred = static_cast<int64_t>(i);
      continue;
    }
    if (v < -1) fail(ctx, "shape ", listStr(target), " has ", v, "; expected dims >= -1");
    if (v == 0 && !allowZero) {
      if (i >= x.shape().size()) {
        fail(ctx, "shape ", listStr(target), " copies input dim ", i, " (0), but the input ",
             describe(x.shape(), x.dtype()), " has only ", x.ndim(), " dims");
      }
      v = x.shape()[i];
    }
    out[i] = v;
    known *= v;
  }
  if (inferred >= 0) {
    if (known == 0 || x.numel() % known != 0) {
      fail(ctx, "cannot reshape ", describe(x.shape(), x.dtype()), " to ", listStr(target),
           ": the other dims (product ", known, ") do not divide ", x.numel(), " elements");
    }
    out[static_cast<size_t>(inferred)] = x.numel() / known;
  } else if (known != x.numel()) {
    fail(ctx, "cannot reshape ", describe(x.shape(), x.dtype()), " (", x.numel(), " elements) to ",
         listStr(target), " (", known, " elements)");
  }
  copyAs(ctx, out);
}

void runSqueeze(RuntimeOpContext& ctx) {
  const Shape& in = ctx.input(0).shape();
  bool given = false;
  std::vector<int64_t> axes = axesOf(ctx, &given);
  std::vector<bool> drop(in.size(), false);
  for (size_t d = 0; d < in.size(); ++d) drop[d] = axes.empty() && in[d] == 1;
  for (int64_t a : axes) {
    auto d = static_cast<size_t>(normalizeAxis(ctx, a, static_cast<int64_t>(in.size()), "axes"));
    if (in[d] != 1)
      fail(ctx, "cannot squeeze axis ", a, " of ", shapeStr(in), ": its size is ", in[d],
           ", expected 1");
    drop[d] = true;
  }
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!drop[d]) out.push_back(in[d]);
  }
  copyAs(ctx, out);
}

void runUnsqueeze(RuntimeOpContext& ctx) {
  const Shape& in = ctx.input(0).shape();
  bool given = false;
  std::vector<int64_t> axes = axesOf(ctx, &given);
  auto rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    auto d = static_cast<size_t>(normalizeAxis(ctx, a, rank, "axes"));
    if (inserted[d]) fail(ctx, "axes ", listStr(axes), " name axis ", d, " twice");
    inserted[d] = true;
  }
  Shape out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    out.push_back(inserted[static_cast<size_t>(d)] ? 1 : in[next++]);
  copyAs(ctx, out);
}

void runFlatten(RuntimeOpContext& ctx) {
  const Shape& in = ctx.input(0).shape();
  auto rank = static_cast<int64_t>(in.size());
  int64_t axis = attrInt(ctx, "axis", 1);
  if (axis != rank) axis = normalizeAxis(ctx, axis, rank);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= in[static_cast<size_t>(d)];
  copyAs(ctx, {outer, inner});
}

void runIdentity(RuntimeOpContext& ctx) {
  if (ctx.inputKind(0) != ValueKind::kTensor) return ctx.setListOutput(0, ctx.listInput(0));
  copyAs(ctx, ctx.input(0).shape());
}

void runShape(RuntimeOpContext& ctx) {
  const Shape& in = ctx.input(0).shape();
  auto rank = static_cast<int64_t>(in.size());
  auto clampAxis = [&](int64_t a) { return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank); };
  int64_t start = clampAxis(attrInt(ctx, "start", 0));
  int64_t end = clampAxis(attrInt(ctx, "end", rank));
  int64_t n = std::max<int64_t>(0, end - start);
  NDArray out = ctx.output(0, {n});
  for (int64_t i = 0; i < n; ++i) out.data<int64_t>()[i] = in[static_cast<size_t>(start + i)];
}

void runSize(RuntimeOpContext& ctx) {
  NDArray out = ctx.output(0, {});
  *out.data<int64_t>() = ctx.input(0).numel();
}

}  // namespace kiln::runtime::ops
