// Reference Gemm, MatMul (numpy batch broadcasting), Softmax, BatchNormalization and reductions.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kiln/ir/reference.h"

namespace kiln::ir::reference {

HostTensor refGemm(const HostTensor& a, const HostTensor& b, const HostTensor* c, bool transA,
                   bool transB, double alpha, double beta) {
  int64_t m = transA ? a.shape[1] : a.shape[0], k = transA ? a.shape[0] : a.shape[1];
  int64_t n = transB ? b.shape[0] : b.shape[1];
  HostTensor y = zeros({m, n});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t q = 0; q < k; ++q) {
        double av = transA ? a.at(q * m + i) : a.at(i * k + q);
        double bv = transB ? b.at(j * k + q) : b.at(q * n + j);
        s += av * bv;
      }
      y.at(i * n + j) = alpha * s;
    }
  }
  if (c != nullptr) {
    y = refBinary(y, *c, [beta](double v, double cv) { return v + beta * cv; });
  }
  return rounded(y);
}

HostTensor refMatMul(const HostTensor& a, const HostTensor& b) {
  Shape as = a.shape, bs = b.shape;
  bool aVec = as.size() == 1, bVec = bs.size() == 1;
  if (aVec) as.insert(as.begin(), 1);
  if (bVec) bs.push_back(1);
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  Shape aBatch(as.begin(), as.end() - 2), bBatch(bs.begin(), bs.end() - 2);
  Shape batch = broadcastShapes({aBatch, bBatch});
  Shape ys = batch;
  ys.push_back(m);
  ys.push_back(n);
  HostTensor y = zeros(ys);
  auto batchOffset = [&](const Dims& bi, const Shape& s) {
    Dims sub(s.size());
    for (size_t d = 0; d < s.size(); ++d) sub[d] = s[d] == 1 ? 0 : bi[batch.size() - s.size() + d];
    return ravel(sub, s);
  };
  int64_t nb = 1;
  for (int64_t d : batch) nb *= d;
  for (int64_t t = 0; t < nb; ++t) {
    Dims bi = unravel(t, batch);
    int64_t ao = batchOffset(bi, aBatch) * m * k, bo = batchOffset(bi, bBatch) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q) s += a.at(ao + i * k + q) * b.at(bo + q * n + j);
        y.at((t * m + i) * n + j) = s;
      }
  }
  Shape out = batch;
  if (!aVec) out.push_back(m);
  if (!bVec) out.push_back(n);
  y.shape = out;
  return rounded(y);
}

HostTensor refSoftmax(const HostTensor& x, int64_t axis) {
  auto rank = static_cast<int64_t>(x.shape.size());
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1, k = x.shape[static_cast<size_t>(axis)];
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[static_cast<size_t>(d)];
  HostTensor y = zeros(x.shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (o * k + j) * inner + i; };
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t j = 0; j < k; ++j) mx = nanMax(mx, x.at(at(j)));
      for (int64_t j = 0; j < k; ++j) sum += std::exp(x.at(at(j)) - mx);
      for (int64_t j = 0; j < k; ++j) y.at(at(j)) = std::exp(x.at(at(j)) - mx) / sum;
    }
  return rounded(y);
}

HostTensor refBatchNorm(const HostTensor& x, const HostTensor& scale, const HostTensor& bias,
                        const HostTensor& mean, const HostTensor& var, double eps) {
  HostTensor y = zeros(x.shape);
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t c = unravel(i, x.shape)[1];
    y.at(i) = (x.at(i) - mean.at(c)) / std::sqrt(var.at(c) + eps) * scale.at(c) + bias.at(c);
  }
  return rounded(y);
}

HostTensor refReduce(const HostTensor& x, const Dims& axes, bool keepDims, ReduceKind kind) {
  size_t rank = x.shape.size();
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes)
    reduced[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(rank) : a)] = true;
  Shape kept;
  for (size_t d = 0; d < rank; ++d) kept.push_back(reduced[d] ? 1 : x.shape[d]);
  HostTensor y = zeros(kept);
  std::vector<int64_t> count(static_cast<size_t>(y.numel()), 0);
  if (kind == ReduceKind::kMax)
    std::fill(y.data.begin(), y.data.end(), -std::numeric_limits<double>::infinity());
  for (int64_t i = 0; i < x.numel(); ++i) {
    Dims idx = unravel(i, x.shape);
    for (size_t d = 0; d < rank; ++d) {
      if (reduced[d]) idx[d] = 0;
    }
    int64_t o = ravel(idx, kept);
    y.at(o) = kind == ReduceKind::kMax ? nanMax(y.at(o), x.at(i)) : y.at(o) + x.at(i);
    ++count[static_cast<size_t>(o)];
  }
  if (kind == ReduceKind::kMean) {
    for (int64_t o = 0; o < y.numel(); ++o)
      y.at(o) /= static_cast<double>(count[static_cast<size_t>(o)]);
  }
  if (!keepDims) {
    Shape s;
    for (size_t d = 0; d < rank; ++d) {
      if (!reduced[d]) s.push_back(x.shape[d]);
    }
    y.shape = s;
  }
  return rounded(y);
}

}  // namespace kiln::ir::reference
