// Reference reductions (all Reduce* ops, ArgMax/ArgMin, GlobalLpPool), Hardmax and the
// normalizations (Layer-, InstanceNormalization, LRN), in double, from the ONNX specification.
#include <cmath>
#include <limits>

#include "kiln/ir/reference.h"

namespace kiln::ir::reference {

namespace {

std::vector<bool> reducedMask(size_t rank, const Dims& axes) {
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) reduced[static_cast<size_t>(a < 0 ? a + int64_t(rank) : a)] = true;
  return reduced;
}

HostTensor dropReduced(HostTensor y, const std::vector<bool>& reduced, const Shape& x) {
  Shape s;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d]) s.push_back(x[d]);
  }
  y.shape = s;
  return y;
}

}  // namespace

HostTensor refReduceOp(const HostTensor& x, const std::string& op, const Dims& axes,
                       bool keepDims) {
  std::vector<bool> reduced = reducedMask(x.shape.size(), axes);
  Shape kept = x.shape;
  for (size_t d = 0; d < kept.size(); ++d) kept[d] = reduced[d] ? 1 : kept[d];
  HostTensor y = zeros(kept, x.dtype);
  std::vector<std::vector<double>> groups(static_cast<size_t>(y.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    Dims idx = unravel(i, x.shape);
    for (size_t d = 0; d < idx.size(); ++d) idx[d] = reduced[d] ? 0 : idx[d];
    groups[static_cast<size_t>(ravel(idx, kept))].push_back(x.at(i));
  }
  for (int64_t o = 0; o < y.numel(); ++o) {
    const std::vector<double>& v = groups[static_cast<size_t>(o)];
    double r = 0;
    if (op == "ReduceMin") {
      r = std::numeric_limits<double>::infinity();
      for (double e : v) r = nanMin(r, e);
    } else if (op == "ReduceMax") {
      r = -std::numeric_limits<double>::infinity();
      for (double e : v) r = nanMax(r, e);
    } else if (op == "ReduceProd") {
      r = 1;
      for (double e : v) r *= e;
    } else if (op == "ReduceLogSumExp") {
      double m = -std::numeric_limits<double>::infinity();
      for (double e : v) m = nanMax(m, e);
      for (double e : v) r += std::exp(e - m);
      r = m + std::log(r);
    } else {
      for (double e : v) {
        r += op == "ReduceL1"                              ? std::fabs(e)
             : op == "ReduceL2" || op == "ReduceSumSquare" ? e * e
                                                           : e;
      }
      if (op == "ReduceL2") r = std::sqrt(r);
      if (op == "ReduceLogSum") r = std::log(r);
      if (op == "ReduceMean") r /= static_cast<double>(v.size());
    }
    y.at(o) = r;
  }
  return rounded(keepDims ? y : dropReduced(y, reduced, x.shape));
}

HostTensor refArgReduce(const HostTensor& x, bool isMax, int64_t axis, bool keepDims,
                        bool selectLast) {
  auto rank = static_cast<int64_t>(x.shape.size());
  auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  Shape kept = x.shape;
  kept[a] = 1;
  HostTensor y = zeros(kept, DataType::int64());
  for (int64_t o = 0; o < y.numel(); ++o) {
    Dims idx = unravel(o, kept);
    int64_t best = 0;
    for (int64_t k = 0; k < x.shape[a]; ++k) {
      idx[a] = k;
      double v = x.at(ravel(idx, x.shape));
      idx[a] = best;
      double b = x.at(ravel(idx, x.shape));
      // NaN is the extreme either way, as in numpy: the first (or last) NaN wins.
      bool better = v != v ? (b == b || selectLast)
                           : b == b && (isMax ? (v > b || (selectLast && v == b))
                                              : (v < b || (selectLast && v == b)));
      if (better) best = k;
    }
    y.at(o) = static_cast<double>(best);
  }
  if (!keepDims) y.shape.erase(y.shape.begin() + static_cast<std::ptrdiff_t>(a));
  return y;
}

HostTensor refHardmax(const HostTensor& x, int64_t axis) {
  HostTensor arg = refArgReduce(x, true, axis, true, false);
  auto a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(x.shape.size()) : axis);
  HostTensor y = zeros(x.shape, x.dtype);
  for (int64_t i = 0; i < x.numel(); ++i) {
    Dims idx = unravel(i, x.shape);
    int64_t k = idx[a];
    idx[a] = 0;
    y.at(i) = arg.at(ravel(idx, arg.shape)) == static_cast<double>(k) ? 1.0 : 0.0;
  }
  return y;
}

HostTensor refGlobalLpPool(const HostTensor& x, int64_t p) {
  Shape out(x.shape.size(), 1);
  out[0] = x.shape[0];
  out[1] = x.shape[1];
  HostTensor y = zeros(out, x.dtype);
  int64_t plane = x.numel() / (x.shape[0] * x.shape[1]);
  for (int64_t o = 0; o < y.numel(); ++o) {
    double s = 0;
    for (int64_t k = 0; k < plane; ++k) s += std::pow(std::fabs(x.at(o * plane + k)), double(p));
    y.at(o) = std::pow(s, 1.0 / static_cast<double>(p));
  }
  return rounded(y);
}

HostTensor refLayerNorm(const HostTensor& x, const HostTensor& scale, const HostTensor* bias,
                        int64_t axis, double eps) {
  auto rank = static_cast<int64_t>(x.shape.size());
  auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  int64_t row = 1;
  for (size_t d = a; d < x.shape.size(); ++d) row *= x.shape[d];
  Shape rowShape(x.shape.begin() + static_cast<std::ptrdiff_t>(a), x.shape.end());
  HostTensor y = zeros(x.shape, x.dtype);
  // numpy broadcasting of a parameter to the row's multi-index.
  auto param = [&rowShape](const HostTensor& p, int64_t j) {
    Dims idx = unravel(j, rowShape);
    Dims pi(p.shape.size());
    size_t lead = idx.size() - p.shape.size();
    for (size_t d = 0; d < pi.size(); ++d) pi[d] = p.shape[d] == 1 ? 0 : idx[lead + d];
    return p.at(ravel(pi, p.shape));
  };
  for (int64_t r = 0; r < x.numel() / std::max<int64_t>(row, 1); ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < row; ++j) mean += x.at(r * row + j);
    mean /= static_cast<double>(row);
    for (int64_t j = 0; j < row; ++j) var += std::pow(x.at(r * row + j) - mean, 2);
    var /= static_cast<double>(row);
    for (int64_t j = 0; j < row; ++j) {
      double v = (x.at(r * row + j) - mean) / std::sqrt(var + eps) * param(scale, j);
      y.at(r * row + j) = bias ? v + param(*bias, j) : v;
    }
  }
  return rounded(y);
}

HostTensor refInstanceNorm(const HostTensor& x, const HostTensor& scale, const HostTensor& bias,
                           double eps) {
  int64_t c = x.shape[1];
  int64_t plane = x.numel() / (x.shape[0] * c);
  HostTensor y = zeros(x.shape, x.dtype);
  for (int64_t p = 0; p < x.shape[0] * c; ++p) {
    double mean = 0, var = 0;
    for (int64_t k = 0; k < plane; ++k) mean += x.at(p * plane + k);
    mean /= static_cast<double>(plane);
    for (int64_t k = 0; k < plane; ++k) var += std::pow(x.at(p * plane + k) - mean, 2);
    var /= static_cast<double>(plane);
    for (int64_t k = 0; k < plane; ++k) {
      double norm = (x.at(p * plane + k) - mean) / std::sqrt(var + eps);
      y.at(p * plane + k) = norm * scale.at(p % c) + bias.at(p % c);
    }
  }
  return rounded(y);
}

HostTensor refLrn(const HostTensor& x, int64_t size, double alpha, double beta, double bias) {
  HostTensor y = zeros(x.shape, x.dtype);
  int64_t channels = x.shape[1];
  for (int64_t i = 0; i < x.numel(); ++i) {
    Dims idx = unravel(i, x.shape);
    int64_t c = idx[1];
    int64_t lo = std::max<int64_t>(0, c - (size - 1) / 2);
    int64_t hi = std::min<int64_t>(channels - 1, c + (size - 1 + 1) / 2);  // ceil((size-1)/2)
    double sq = 0;
    for (int64_t k = lo; k <= hi; ++k) {
      idx[1] = k;
      sq += std::pow(x.at(ravel(idx, x.shape)), 2);
    }
    y.at(i) = x.at(i) / std::pow(bias + alpha / static_cast<double>(size) * sq, beta);
  }
  return rounded(y);
}

}  // namespace kiln::ir::reference
