// Reference NonZero, Compress, Unique, TopK and CumSum, as the ONNX specification (and numpy's
// nonzero, compress and unique) describe them: plain loops over doubles.
#include <algorithm>
#include <numeric>

#include "op_table.h"

namespace kiln::ir::reference {
namespace {

int64_t axisOf(int64_t axis, size_t rank) {
  return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
}

// The slice of X at position K along AXIS, as a list of values.
std::vector<double> sliceAt(const HostTensor& x, size_t axis, int64_t k) {
  std::vector<double> out;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (unravel(i, x.shape)[axis] == k) out.push_back(x.at(i));
  }
  return out;
}

// X with the slices KEEP (in order) along AXIS.
HostTensor takeSlices(const HostTensor& x, size_t axis, const Dims& keep) {
  Shape out = x.shape;
  out[axis] = static_cast<int64_t>(keep.size());
  HostTensor y = zeros(out, x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims idx = unravel(i, out);
    idx[axis] = keep[static_cast<size_t>(idx[axis])];
    y.at(i) = x.at(ravel(idx, x.shape));
  }
  return y;
}

HostTensor flat(const HostTensor& x) {
  HostTensor f = x;
  f.shape = {x.numel()};
  return f;
}

HostTensor ints(const Dims& v) {
  HostTensor t = zeros({static_cast<int64_t>(v.size())}, DataType::int64());
  for (size_t i = 0; i < v.size(); ++i) t.data[i] = static_cast<double>(v[i]);
  return t;
}

std::vector<HostTensor> nonZero(const Call& c) {
  const HostTensor& x = c.x(0);
  Dims hits;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (x.at(i) != 0) hits.push_back(i);
  }
  auto rank = static_cast<int64_t>(x.shape.size());
  auto n = static_cast<int64_t>(hits.size());
  HostTensor y = zeros({rank, n}, DataType::int64());
  for (int64_t k = 0; k < n; ++k) {
    Dims idx = unravel(hits[static_cast<size_t>(k)], x.shape);
    for (int64_t d = 0; d < rank; ++d) y.at(d * n + k) = static_cast<double>(idx[d]);
  }
  return {y};
}

std::vector<HostTensor> compress(const Call& c) {
  bool hasAxis = c.attrs().has("axis");
  HostTensor x = hasAxis ? c.x(0) : flat(c.x(0));
  auto axis = static_cast<size_t>(hasAxis ? axisOf(c.attrs().getInt("axis"), x.shape.size()) : 0);
  Dims keep;
  for (int64_t i = 0; i < c.x(1).numel(); ++i) {
    if (c.x(1).at(i) != 0) keep.push_back(i);
  }
  return {takeSlices(x, axis, keep)};
}

std::vector<HostTensor> unique(const Call& c) {
  bool hasAxis = c.attrs().has("axis");
  HostTensor x = hasAxis ? c.x(0) : flat(c.x(0));
  auto axis = static_cast<size_t>(hasAxis ? axisOf(c.attrs().getInt("axis"), x.shape.size()) : 0);
  std::vector<std::vector<double>> slices;
  for (int64_t k = 0; k < x.shape[axis]; ++k) slices.push_back(sliceAt(x, axis, k));
  Dims first;  // per distinct slice, in order of first occurrence
  Dims inverse;
  for (size_t k = 0; k < slices.size(); ++k) {
    auto it = std::find_if(first.begin(), first.end(),
                           [&](int64_t f) { return slices[static_cast<size_t>(f)] == slices[k]; });
    inverse.push_back(it - first.begin());
    if (it == first.end()) first.push_back(static_cast<int64_t>(k));
  }
  Dims order(first.size());  // positions of FIRST in output order
  std::iota(order.begin(), order.end(), 0);
  if (c.attrs().getInt("sorted", 1) != 0) {
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return slices[static_cast<size_t>(first[static_cast<size_t>(a)])] <
             slices[static_cast<size_t>(first[static_cast<size_t>(b)])];
    });
  }
  Dims rankOf(first.size()), keep, counts(first.size(), 0);
  for (size_t r = 0; r < order.size(); ++r) {
    rankOf[static_cast<size_t>(order[r])] = static_cast<int64_t>(r);
    keep.push_back(first[static_cast<size_t>(order[r])]);
  }
  for (int64_t& i : inverse) {
    i = rankOf[static_cast<size_t>(i)];
    ++counts[static_cast<size_t>(i)];
  }
  std::vector<HostTensor> outs = {takeSlices(x, axis, keep), ints(keep), ints(inverse),
                                  ints(counts)};
  outs.resize(c.node.outputs.size());
  return outs;
}

std::vector<HostTensor> topK(const Call& c) {
  const HostTensor& x = c.x(0);
  auto axis = static_cast<size_t>(axisOf(c.attrs().getInt("axis", -1), x.shape.size()));
  auto k = static_cast<int64_t>(c.attrs().has("k") ? c.attrs().getInt("k") : c.x(1).at(0));
  bool largest = c.attrs().getInt("largest", 1) != 0;
  Shape out = x.shape;
  out[axis] = k;
  HostTensor values = zeros(out, x.dtype), indices = zeros(out, DataType::int64());
  for (int64_t i = 0; i < values.numel(); ++i) {
    Dims idx = unravel(i, out);
    if (idx[axis] != 0) continue;  // one selection per line along AXIS
    Dims line(static_cast<size_t>(x.shape[axis]));
    std::iota(line.begin(), line.end(), 0);
    auto value = [&](int64_t j) {
      Dims at = idx;
      at[axis] = j;
      return x.at(ravel(at, x.shape));
    };
    std::sort(line.begin(), line.end(), [&](int64_t a, int64_t b) {  // ties: lower index first
      if (value(a) != value(b)) return largest ? value(a) > value(b) : value(a) < value(b);
      return a < b;
    });
    for (int64_t j = 0; j < k; ++j) {
      Dims at = idx;
      at[axis] = j;
      values.at(ravel(at, out)) = value(line[static_cast<size_t>(j)]);
      indices.at(ravel(at, out)) = static_cast<double>(line[static_cast<size_t>(j)]);
    }
  }
  std::vector<HostTensor> outs = {values, indices};
  outs.resize(c.node.outputs.size());
  return outs;
}

std::vector<HostTensor> cumSum(const Call& c) {
  const HostTensor& x = c.x(0);
  auto axis = static_cast<size_t>(axisOf(static_cast<int64_t>(c.x(1).at(0)), x.shape.size()));
  bool exclusive = c.attrs().getInt("exclusive", 0) != 0;
  bool reverse = c.attrs().getInt("reverse", 0) != 0;
  HostTensor y = zeros(x.shape, x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims idx = unravel(i, x.shape);
    int64_t n = x.shape[axis], at = idx[axis];
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      bool before = reverse ? j > at : j < at;
      if (before || (j == at && !exclusive)) {
        Dims src = idx;
        src[axis] = j;
        sum += x.at(ravel(src, x.shape));
      }
    }
    y.at(i) = sum;
  }
  return {rounded(y)};
}

}  // namespace

void addDataDependentRefs(OpTable& t) {
  t["NonZero"] = nonZero;
  t["Compress"] = compress;
  t["Unique"] = unique;
  t["TopK"] = topK;
  t["CumSum"] = cumSum;
}

}  // namespace kiln::ir::reference
