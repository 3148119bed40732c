// Indexed reads and writes: ScatterElements (and Scatter, its opset 9-10 name), ScatterND with
// its reductions, and GatherND. Indices may be negative (counted from the end); one out of range
// is a data error naming the position.
#include "kiln/opdef/scatter.h"

#include "context_view.h"
#include "kiln/opdef/index.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

int64_t checkedIndex(const RuntimeOpContext& ctx, int64_t i, int64_t dim, int64_t at) {
  if (i < -dim || i >= dim) {
    fail(ctx, "index ", i, " (element ", at, " of the indices) is out of range for a dim of ", dim,
         "; expected [", -dim, ", ", dim - 1, "]");
  }
  return i < 0 ? i + dim : i;
}

// DST[at] op= SRC[from] for the reduction R (none, add, mul, max, min).
template <typename T>
void combine(T* dst, const T* src, int64_t at, int64_t from, const std::string& r) {
  if constexpr (std::is_same_v<T, bool>) {
    dst[at] = r == "add" || r == "max" ? (dst[at] || src[from])
              : r == "none"            ? src[from]
                                       : (dst[at] && src[from]);
  } else if (r == "add") {
    dst[at] = static_cast<T>(dst[at] + src[from]);
  } else if (r == "mul") {
    dst[at] = static_cast<T>(dst[at] * src[from]);
  } else if (r == "max") {
    dst[at] = std::max(dst[at], src[from]);
  } else if (r == "min") {
    dst[at] = std::min(dst[at], src[from]);
  } else {
    dst[at] = src[from];
  }
}

std::string reductionOf(const RuntimeOpContext& ctx) {
  std::string r = attrString(ctx, "reduction", "none");
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min") {
    fail(ctx, "reduction '", r, "' is not known; expected none, add, mul, max or min");
  }
  return r;
}

}  // namespace

void runScatterElements(RuntimeOpContext& ctx) {
  const NDArray& data = ctx.input(0);
  std::vector<int64_t> indices = inputInts(ctx, 1, "indices");
  const NDArray& updates = ctx.input(2);
  const Shape& shape = data.shape();
  auto axis = static_cast<size_t>(opdef::scatterElementsAxis(ContextView(ctx)));
  std::string r = reductionOf(ctx);
  NDArray y = ctx.output(0, shape);
  y.copyFrom(data);
  std::vector<int64_t> strides = rowMajorStrides(shape);
  visitNumeric(ctx, data.dtype(), [&](auto t) {
    using T = decltype(t);
    T* dst = static_cast<T*>(y.data());
    const T* src = static_cast<const T*>(updates.data());
    std::vector<int64_t> idx(updates.shape().size(), 0);
    for (int64_t e = 0; e < updates.numel(); ++e) {
      int64_t at = 0;
      for (size_t d = 0; d < idx.size(); ++d) {
        int64_t i =
            d == axis ? checkedIndex(ctx, indices[static_cast<size_t>(e)], shape[d], e) : idx[d];
        at += i * strides[d];
      }
      combine(dst, src, at, e, r);
      for (size_t d = idx.size(); d-- > 0;) {
        if (++idx[d] < updates.shape()[d]) break;
        idx[d] = 0;
      }
    }
  });
}

void runScatterND(RuntimeOpContext& ctx) {
  const NDArray& data = ctx.input(0);
  const NDArray& indexArray = ctx.input(1);
  std::vector<int64_t> indices = inputInts(ctx, 1, "indices");
  const NDArray& updates = ctx.input(2);
  const Shape& shape = data.shape();
  int64_t k = opdef::scatterNdDepth(ContextView(ctx));  // as at compile time
  std::string r = reductionOf(ctx);
  NDArray y = ctx.output(0, shape);
  y.copyFrom(data);
  std::vector<int64_t> strides = rowMajorStrides(shape);
  int64_t slice = 1;  // elements per update: data's dims past the first K
  for (size_t d = static_cast<size_t>(k); d < shape.size(); ++d) slice *= shape[d];
  int64_t count = indexArray.numel() / std::max<int64_t>(k, 1);
  if (k == 0) count = 1;
  if (updates.numel() != count * slice) {
    fail(ctx, "updates ", shapeStr(updates.shape()), " hold ", updates.numel(),
         " elements; the indices address ", count, " slices of ", slice);
  }
  visitNumeric(ctx, data.dtype(), [&](auto t) {
    using T = decltype(t);
    T* dst = static_cast<T*>(y.data());
    const T* src = static_cast<const T*>(updates.data());
    for (int64_t u = 0; u < count; ++u) {
      int64_t base = 0;
      for (int64_t d = 0; d < k; ++d) {
        int64_t at = u * k + d;
        base +=
            checkedIndex(ctx, indices[static_cast<size_t>(at)], shape[static_cast<size_t>(d)], at) *
            strides[static_cast<size_t>(d)];
      }
      for (int64_t j = 0; j < slice; ++j) combine(dst, src, base + j, u * slice + j, r);
    }
  });
}

void runGatherND(RuntimeOpContext& ctx) {
  const NDArray& data = ctx.input(0);
  const NDArray& indexArray = ctx.input(1);
  std::vector<int64_t> indices = inputInts(ctx, 1, "indices");
  const Shape& shape = data.shape();
  NDArray y = ctx.output(0, opdef::gatherNdShape(ContextView(ctx)));  // as at compile time
  int64_t b = attrInt(ctx, "batch_dims", 0);
  int64_t k = indexArray.shape().back();
  std::vector<int64_t> strides = rowMajorStrides(shape);
  int64_t slice = 1;
  for (size_t d = static_cast<size_t>(b + k); d < shape.size(); ++d) slice *= shape[d];
  int64_t batches = 1;
  for (int64_t d = 0; d < b; ++d) batches *= shape[static_cast<size_t>(d)];
  int64_t perBatch = indexArray.numel() / std::max<int64_t>(k, 1) / batches;
  size_t bytes = data.dtype().bytes();
  const auto* src = static_cast<const char*>(data.data());
  auto* dst = static_cast<char*>(y.data());
  int64_t batchStride = b == 0 ? 0 : strides[static_cast<size_t>(b - 1)];
  for (int64_t bi = 0; bi < batches; ++bi) {
    for (int64_t u = 0; u < perBatch; ++u) {
      int64_t row = bi * perBatch + u;
      int64_t base = bi * batchStride;
      for (int64_t d = 0; d < k; ++d) {
        int64_t at = row * k + d;
        auto dim = static_cast<size_t>(b + d);
        base += checkedIndex(ctx, indices[static_cast<size_t>(at)], shape[dim], at) * strides[dim];
      }
      std::memcpy(dst + static_cast<size_t>(row * slice) * bytes,
                  src + static_cast<size_t>(base) * bytes, static_cast<size_t>(slice) * bytes);
    }
  }
}

}  // namespace kiln::runtime::ops
