// Reference data movement: Transpose, Slice, Gather, Concat, Expand and Reshape.
#include <algorithm>

#include "kiln/ir/reference.h"

namespace kiln::ir::reference {

HostTensor reshaped(HostTensor x, const Shape& shape) {
  x.shape = shape;
  return x;
}

HostTensor refTranspose(const HostTensor& x, const Dims& perm) {
  Shape ys;
  for (int64_t p : perm) ys.push_back(x.shape[static_cast<size_t>(p)]);
  HostTensor y = zeros(ys, x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims yi = unravel(i, ys), xi(perm.size());
    for (size_t d = 0; d < perm.size(); ++d) xi[static_cast<size_t>(perm[d])] = yi[d];
    y.at(i) = x.at(ravel(xi, x.shape));
  }
  return y;
}

HostTensor refSlice(const HostTensor& x, const Dims& starts, const Dims& ends, const Dims& axes,
                    const Dims& steps) {
  size_t rank = x.shape.size();
  Dims begin(rank, 0), step(rank, 1);
  Shape ys = x.shape;
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t a = axes[k] < 0 ? axes[k] + static_cast<int64_t>(rank) : axes[k];
    auto d = static_cast<size_t>(a);
    int64_t dim = x.shape[d], s = starts[k], e = ends[k], st = steps[k];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      ys[d] = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      ys[d] = s > e ? (s - e - st - 1) / (-st) : 0;
    }
    begin[d] = s;
    step[d] = st;
  }
  HostTensor y = zeros(ys, x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims yi = unravel(i, ys);
    for (size_t d = 0; d < rank; ++d) yi[d] = begin[d] + yi[d] * step[d];
    y.at(i) = x.at(ravel(yi, x.shape));
  }
  return y;
}

HostTensor refGather(const HostTensor& x, const HostTensor& indices, int64_t axis) {
  auto rank = static_cast<int64_t>(x.shape.size());
  if (axis < 0) axis += rank;
  auto a = static_cast<size_t>(axis);
  Shape ys(x.shape.begin(), x.shape.begin() + axis);
  ys.insert(ys.end(), indices.shape.begin(), indices.shape.end());
  ys.insert(ys.end(), x.shape.begin() + axis + 1, x.shape.end());
  HostTensor y = zeros(ys, x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims yi = unravel(i, ys);
    Dims ii(yi.begin() + axis, yi.begin() + axis + static_cast<int64_t>(indices.shape.size()));
    auto k = static_cast<int64_t>(indices.at(ravel(ii, indices.shape)));
    if (k < 0) k += x.shape[a];
    Dims xi(yi.begin(), yi.begin() + axis);
    xi.push_back(k);
    xi.insert(xi.end(), yi.begin() + axis + static_cast<int64_t>(indices.shape.size()), yi.end());
    y.at(i) = x.at(ravel(xi, x.shape));
  }
  return y;
}

HostTensor refConcat(const std::vector<const HostTensor*>& xs, int64_t axis) {
  auto rank = static_cast<int64_t>(xs[0]->shape.size());
  if (axis < 0) axis += rank;
  auto a = static_cast<size_t>(axis);
  Shape ys = xs[0]->shape;
  ys[a] = 0;
  for (const HostTensor* x : xs) ys[a] += x->shape[a];
  HostTensor y = zeros(ys, xs[0]->dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims yi = unravel(i, ys);
    for (const HostTensor* x : xs) {
      if (yi[a] < x->shape[a]) {
        y.at(i) = x->at(ravel(yi, x->shape));
        break;
      }
      yi[a] -= x->shape[a];
    }
  }
  return y;
}

HostTensor refExpand(const HostTensor& x, const Shape& shape) {
  Shape out = broadcastShapes({x.shape, shape});
  HostTensor y = refNary(
      {&x}, [](const std::vector<double>& v) { return v[0]; }, x.dtype);
  if (y.shape == out) return y;
  HostTensor shaped = zeros(out, x.dtype);
  return refBinary(
      shaped, x, [](double, double v) { return v; }, x.dtype);
}

}  // namespace kiln::ir::reference
