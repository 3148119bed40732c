// Reference elementwise ops with numpy multidirectional broadcasting.
#include <algorithm>
#include <stdexcept>

#include "kiln/ir/reference.h"

namespace kiln::ir::reference {

Dims stridesOf(const Shape& shape) {
  Dims s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

Dims unravel(int64_t flat, const Shape& shape) {
  Dims idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

int64_t ravel(const Dims& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

HostTensor refUnary(const HostTensor& x, const std::function<double(double)>& f, DataType outType) {
  HostTensor y = zeros(x.shape, outType);
  for (int64_t i = 0; i < x.numel(); ++i) y.at(i) = f(x.at(i));
  return rounded(y);
}

Shape broadcastShapes(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape& s : shapes) {
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& o = out[rank - s.size() + k];
      if (s[k] == o || s[k] == 1) continue;
      if (o != 1) throw std::runtime_error("shapes do not broadcast");
      o = s[k];
    }
  }
  return out;
}

HostTensor refNary(const std::vector<const HostTensor*>& ins,
                   const std::function<double(const std::vector<double>&)>& f, DataType outType) {
  std::vector<Shape> shapes;
  shapes.reserve(ins.size());
  for (const HostTensor* t : ins) shapes.push_back(t->shape);
  Shape out = broadcastShapes(shapes);
  HostTensor y = zeros(out, outType);
  std::vector<double> args(ins.size());
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims idx = unravel(i, out);
    for (size_t k = 0; k < ins.size(); ++k) {
      const Shape& s = ins[k]->shape;
      Dims sub(s.size());
      for (size_t d = 0; d < s.size(); ++d) sub[d] = s[d] == 1 ? 0 : idx[out.size() - s.size() + d];
      args[k] = ins[k]->at(ravel(sub, s));
    }
    y.at(i) = f(args);
  }
  return rounded(y);
}

HostTensor refBinary(const HostTensor& a, const HostTensor& b,
                     const std::function<double(double, double)>& f, DataType outType) {
  return refNary(
      {&a, &b}, [&](const std::vector<double>& v) { return f(v[0], v[1]); }, outType);
}

}  // namespace kiln::ir::reference
