// Ops that give the same elements a new shape (Reshape, Squeeze, Unsqueeze, Flatten, Identity)
// and ops that describe a shape (Shape, Size), on tensors whose shapes are known at run time.
#include "kiln/opdef/reshape.h"

#include "context_view.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

void copyAs(RuntimeOpContext& ctx, const Shape& shape) {
  const NDArray& x = ctx.input(0);
  NDArray out = ctx.output(0, shape);
  out.copyFrom(x.view(shape, x.dtype()));  // x is compact: the same elements in SHAPE
}

}  // namespace

// The output shapes are src/opdef's rules, as at compile time.
void runReshape(RuntimeOpContext& ctx) {
  copyAs(ctx, opdef::knownDims(opdef::reshapeShape(ContextView(ctx))));
}
void runSqueeze(RuntimeOpContext& ctx) {
  copyAs(ctx, opdef::knownDims(opdef::squeezeShape(ContextView(ctx))));
}
void runUnsqueeze(RuntimeOpContext& ctx) {
  copyAs(ctx, opdef::knownDims(opdef::unsqueezeShape(ContextView(ctx))));
}
void runFlatten(RuntimeOpContext& ctx) {
  copyAs(ctx, opdef::knownDims(opdef::flattenShape(ContextView(ctx))));
}

void runIdentity(RuntimeOpContext& ctx) {
  if (ctx.inputKind(0) != ValueKind::kTensor) return ctx.setListOutput(0, ctx.listInput(0));
  copyAs(ctx, ctx.input(0).shape());
}

void runShape(RuntimeOpContext& ctx) {
  const Shape& in = ctx.input(0).shape();
  opdef::DimRange dims = opdef::shapeOpRange(ContextView(ctx));
  NDArray out = ctx.output(0, {dims.end - dims.start});
  for (int64_t i = dims.start; i < dims.end; ++i)
    out.data<int64_t>()[i - dims.start] = in[static_cast<size_t>(i)];
}

void runSize(RuntimeOpContext& ctx) {
  NDArray out = ctx.output(0, {});
  *out.data<int64_t>() = ctx.input(0).numel();
}

}  // namespace kiln::runtime::ops
