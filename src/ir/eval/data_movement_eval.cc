// Constant evaluation of ops that only move elements: reshape-likes, Gather, Concat, Split,
// Slice, Expand and Transpose. They copy element bytes, so they work for every dtype.
#include "eval_util.h"
#include "evaluators.h"
#include "kiln/ir/node_view.h"
#include "kiln/opdef/slice.h"
#include "kiln/support/error.h"

namespace kiln::ir::eval {

Outputs evalSameData(const Node& node, const std::vector<TensorType>& out) {
  return std::vector<NDArray>{copyAs(in(node, 0), out[0])};
}

Outputs evalGather(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& data = in(node, 0);
  const NDArray& indices = in(node, 1);
  auto axis = static_cast<size_t>(node.attrs.getInt("axis", 0) < 0
                                      ? node.attrs.getInt("axis", 0) + data.ndim()
                                      : node.attrs.getInt("axis", 0));
  const Shape& shape = data.shape();
  int64_t outer = 1;
  int64_t inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  int64_t dim = shape[axis];
  size_t bytes = data.dtype().bytes() * static_cast<size_t>(inner);
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  int64_t count = indices.numel();
  bool wide = indices.dtype() == DataType::int64();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < count; ++j) {
      int64_t idx = wide ? indices.data<int64_t>()[j] : indices.data<int32_t>()[j];
      if (idx < 0) idx += dim;
      KILN_CHECK(idx >= 0 && idx < dim, "Gather index escaped inference's range check");
      copyElement(result, o * count + j, data, o * dim + idx, bytes);
    }
  }
  return std::vector<NDArray>{result};
}

Outputs evalConcat(const Node& node, const std::vector<TensorType>& out) {
  const Shape& shape = out[0].shape;
  int64_t axisAttr = node.attrs.getInt("axis");
  auto axis =
      static_cast<size_t>(axisAttr < 0 ? axisAttr + static_cast<int64_t>(shape.size()) : axisAttr);
  int64_t outer = 1;
  int64_t inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  size_t elem = out[0].dtype.bytes();
  NDArray result = NDArray::empty(shape, out[0].dtype);
  auto* dst = static_cast<char*>(result.data());
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const NDArray& src = in(node, k);
      size_t chunk = static_cast<size_t>(src.shape()[axis] * inner) * elem;
      std::memcpy(dst, static_cast<const char*>(src.data()) + static_cast<size_t>(o) * chunk,
                  chunk);
      dst += chunk;
    }
  }
  return std::vector<NDArray>{result};
}

// Each output is the next OUT[k].shape[axis] entries of the axis (its inferred type, by the rule
// the runtime's Split follows).
Outputs evalSplit(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& data = in(node, 0);
  const Shape& shape = data.shape();
  auto axis = static_cast<size_t>(node.attrs.getInt("axis", 0) < 0
                                      ? node.attrs.getInt("axis", 0) + data.ndim()
                                      : node.attrs.getInt("axis", 0));
  int64_t outer = 1;
  int64_t inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  auto row = static_cast<size_t>(inner) * data.dtype().bytes();
  const auto* src = static_cast<const char*>(data.data());
  std::vector<NDArray> results;
  int64_t start = 0;
  for (const TensorType& t : out) {
    int64_t part = t.shape[axis];
    results.push_back(NDArray::empty(t.shape, t.dtype));
    auto* dst = static_cast<char*>(results.back().data());
    for (int64_t o = 0; o < outer && part > 0; ++o) {
      std::memcpy(dst + static_cast<size_t>(o * part) * row,
                  src + static_cast<size_t>(o * shape[axis] + start) * row,
                  static_cast<size_t>(part) * row);
    }
    start += part;
  }
  return results;
}

Outputs evalSlice(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& data = in(node, 0);
  std::vector<opdef::SliceRange> ranges = opdef::sliceRanges(NodeView(node));
  std::vector<int64_t> inStrides = rowMajorStrides(data.shape());
  std::vector<int64_t> strides(ranges.size());
  int64_t base = 0;
  for (size_t d = 0; d < ranges.size(); ++d) {
    strides[d] = inStrides[d] * ranges[d].step;
    base += inStrides[d] * ranges[d].start;
  }
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  size_t bytes = out[0].dtype.bytes();
  StridedWalker walk(out[0].shape, {strides}, {base});
  for (int64_t i = 0; i < walk.size(); ++i, walk.next()) {
    copyElement(result, i, data, walk.offset(0), bytes);
  }
  return std::vector<NDArray>{result};
}

Outputs evalExpand(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& data = in(node, 0);
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  size_t bytes = out[0].dtype.bytes();
  StridedWalker walk(out[0].shape, {broadcastStrides(data.shape(), out[0].shape)});
  for (int64_t i = 0; i < walk.size(); ++i, walk.next()) {
    copyElement(result, i, data, walk.offset(0), bytes);
  }
  return std::vector<NDArray>{result};
}

Outputs evalTranspose(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& data = in(node, 0);
  std::vector<int64_t> perm;
  for (int64_t d = data.ndim() - 1; d >= 0; --d) perm.push_back(d);
  perm = node.attrs.getInts("perm", perm);
  std::vector<int64_t> inStrides = rowMajorStrides(data.shape());
  std::vector<int64_t> strides;
  strides.reserve(perm.size());
  for (int64_t p : perm) strides.push_back(inStrides[static_cast<size_t>(p)]);
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  size_t bytes = out[0].dtype.bytes();
  StridedWalker walk(out[0].shape, {strides});
  for (int64_t i = 0; i < walk.size(); ++i, walk.next()) {
    copyElement(result, i, data, walk.offset(0), bytes);
  }
  return std::vector<NDArray>{result};
}

}  // namespace kiln::ir::eval
