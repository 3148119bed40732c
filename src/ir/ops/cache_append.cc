// Type inference of kiln.CacheAppend, the in-place form of a key/value cache's Concat that
// cache-in-place makes: the past and the present share one buffer laid out for ROWS rows on the
// cache axis, so appending writes only the new rows.
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

// kiln.CacheAppend(past [.., P, ..], new [.., S, ..]) {axis, rows} -> [.., P+S, ..]. The past and
// the output are stored with ROWS rows on AXIS (element (o, j, i) at (o·ROWS + j)·inner + i),
// which is why the dims after AXIS must be static and ROWS positive.
void inferCacheAppend(Node& node) {
  const TensorType& past = inputType(node, 0, "past");
  const TensorType& next = inputType(node, 1, "new");
  requireSameDtype(node, 0, 1);
  if (past.rank() != next.rank()) {
    fail(node, "past is ", past.str(), " and new ", next.str(), "; expected equal ranks");
  }
  if (!node.attrs.has("axis") || !node.attrs.has("rows")) {
    fail(node, "the 'axis' and 'rows' attributes are required");
  }
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis"), past.rank()));
  int64_t rows = node.attrs.getInt("rows");
  if (rows < 1) fail(node, "rows is ", rows, "; expected at least 1");
  opdef::DimList out = past.dims();
  for (size_t d = 0; d < out.size(); ++d) {
    if (d == axis) continue;
    if (past.dim(d) != next.dim(d)) {
      fail(node, "past is ", past.str(), " and new ", next.str(),
           "; expected equal dims except on axis ", axis);
    }
    if (d > axis && !past.dim(d).isConst()) {
      fail(node, "dim ", d, " is ", past.dim(d).str(),
           "; the dims after the cache axis must be static");
    }
  }
  out[axis] = past.dim(axis) + next.dim(axis);
  setOutput(node, 0, TensorType::of(past.dtype, out));
}

}  // namespace

void registerCacheOps(const OpAdder& add) {
  add({.name = "kiln.CacheAppend",
       .opClass = OpClass::kOpaque,
       .minInputs = 2,
       .maxInputs = 2,
       .inferTypes = inferCacheAppend,
       .symbolicSizes = true,
       .symbolicKernel = true});
}

}  // namespace kiln::ir::ops
