// kiln.CacheAppend: the new keys or values written after the past rows of a cache laid out for
// its capacity (cache-in-place), so a decode step copies one row per head instead of the cache.
#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

// Element (o, j, i) of the output lives at (o·rows + j)·inner + i: the output's extents with the
// cache axis at ROWS. The past rows are in place already, so only input 1's elements are stored.
Stmt emitCacheAppend(LowerContext& ctx, const ir::Node& node, const StoreFn&) {
  if (ctx.group().nodes.size() != 1) {
    unsupported(node, "it writes the cache's layout itself; expected a group of its own");
  }
  const ir::Value *past = node.inputs[0], *next = node.inputs[1], *out = node.outputs[0];
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis"), out->type.rank()));
  Index layout = ctx.extentsOf(out);
  layout[axis] = intImm(node.attrs.getInt("rows"));
  Expr start = ctx.extentsOf(past)[axis];
  Buffer buffer = ctx.param(out);
  Accessor value = ctx.accessor(next);
  return elementwiseNest(ctx, ctx.extentsOf(next), ctx.capacityNumel(next), [&](const Index& i) {
    Index o = i;
    o[axis] = i[axis] + start;
    return ctx.checked(store(buffer, flatten(o, layout), value(i)));
  });
}

}  // namespace

void addCacheLowerings(LoweringMap& table) {
  table["kiln.CacheAppend"].emit = emitCacheAppend;
  table["kiln.CacheAppend"].symbolicSizes = true;
}

}  // namespace kiln::kernel
