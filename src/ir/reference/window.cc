// Reference convolution and pooling, by their definitions over the padded input.
#include <algorithm>
#include <limits>

#include "kiln/ir/reference.h"

namespace kiln::ir::reference {

Dims windowOutput(const Dims& spatial, const WindowParams& p) {
  Dims out;
  for (size_t d = 0; d < spatial.size(); ++d) {
    int64_t padded = spatial[d] + p.padsBegin[d] + p.padsEnd[d];
    int64_t span = (p.kernel[d] - 1) * p.dilations[d] + 1;
    int64_t o;
    if (p.ceilMode) {
      o = (padded - span + p.strides[d] - 1) / p.strides[d] + 1;
      if ((o - 1) * p.strides[d] >= spatial[d] + p.padsBegin[d]) --o;
    } else {
      o = (padded - span) / p.strides[d] + 1;
    }
    out.push_back(o);
  }
  return out;
}

void samePads(const Dims& spatial, WindowParams& p, bool upper) {
  p.padsBegin.assign(spatial.size(), 0);
  p.padsEnd.assign(spatial.size(), 0);
  for (size_t d = 0; d < spatial.size(); ++d) {
    int64_t out = (spatial[d] + p.strides[d] - 1) / p.strides[d];
    int64_t span = (p.kernel[d] - 1) * p.dilations[d] + 1;
    int64_t total = std::max<int64_t>(0, (out - 1) * p.strides[d] + span - spatial[d]);
    p.padsBegin[d] = upper ? total / 2 : total - total / 2;
    p.padsEnd[d] = total - p.padsBegin[d];
  }
}

namespace {

// Every kernel tap of an N-D window, as offsets per spatial dim (unravelled once, so the
// references stay fast on wide inputs).
std::vector<Dims> windowTaps(const Dims& kernel) {
  int64_t n = 1;
  for (int64_t k : kernel) n *= k;
  std::vector<Dims> taps;
  for (int64_t t = 0; t < n; ++t) taps.push_back(unravel(t, kernel));
  return taps;
}

}  // namespace

HostTensor refConv(const HostTensor& x, const HostTensor& w, const HostTensor* b,
                   const WindowParams& p, int64_t group) {
  size_t nd = x.shape.size() - 2;
  Dims spatial(x.shape.begin() + 2, x.shape.end());
  Dims out = windowOutput(spatial, p);
  int64_t n = x.shape[0], ic = x.shape[1], oc = w.shape[0];
  int64_t icg = ic / group, ocg = oc / group;
  Shape ys{n, oc};
  ys.insert(ys.end(), out.begin(), out.end());
  HostTensor y = zeros(ys);
  Dims xs = stridesOf(x.shape), wst = stridesOf(w.shape);
  std::vector<Dims> taps = windowTaps(p.kernel);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims yi = unravel(i, ys);
    int64_t bn = yi[0], o = yi[1];
    double s = b ? b->at(o) : 0.0;
    for (int64_t q = 0; q < icg; ++q) {
      int64_t c = (o / ocg) * icg + q;
      for (const Dims& k : taps) {
        int64_t xi = bn * xs[0] + c * xs[1], wi = o * wst[0] + q * wst[1];
        bool inside = true;
        for (size_t d = 0; d < nd && inside; ++d) {
          int64_t pos = yi[2 + d] * p.strides[d] - p.padsBegin[d] + k[d] * p.dilations[d];
          inside = pos >= 0 && pos < spatial[d];
          xi += pos * xs[2 + d];
          wi += k[d] * wst[2 + d];
        }
        if (inside) s += x.at(xi) * w.at(wi);
      }
    }
    y.at(i) = s;
  }
  return rounded(y);
}

HostTensor refConvTranspose(const HostTensor& x, const HostTensor& w, const HostTensor* b,
                            const Shape& out, const Dims& strides, const Dims& dilations,
                            const Dims& padsBegin, int64_t group) {
  size_t nd = x.shape.size() - 2;
  int64_t icg = x.shape[1] / group, ocg = w.shape[1];
  HostTensor y = zeros(out, x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) y.at(i) = b ? b->at(unravel(i, out)[1]) : 0.0;
  std::vector<Dims> taps = windowTaps(Dims(w.shape.begin() + 2, w.shape.end()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    Dims xi = unravel(i, x.shape);
    int64_t g = xi[1] / icg;
    for (int64_t m = 0; m < ocg; ++m) {
      for (const Dims& k : taps) {
        Dims yi = {xi[0], g * ocg + m};
        bool inside = true;
        for (size_t d = 0; d < nd && inside; ++d) {
          int64_t pos = xi[2 + d] * strides[d] + k[d] * dilations[d] - padsBegin[d];
          inside = pos >= 0 && pos < out[2 + d];
          yi.push_back(pos);
        }
        if (!inside) continue;
        Dims wi = {xi[1], m};
        wi.insert(wi.end(), k.begin(), k.end());
        y.at(ravel(yi, out)) += x.at(i) * w.at(ravel(wi, w.shape));
      }
    }
  }
  return rounded(y);
}

HostTensor refPool(const HostTensor& x, const WindowParams& p, PoolKind kind,
                   bool countIncludePad) {
  size_t nd = x.shape.size() - 2;
  Dims spatial(x.shape.begin() + 2, x.shape.end());
  Dims out = windowOutput(spatial, p);
  Shape ys{x.shape[0], x.shape[1]};
  ys.insert(ys.end(), out.begin(), out.end());
  HostTensor y = zeros(ys);
  Dims xs = stridesOf(x.shape);
  std::vector<Dims> taps = windowTaps(p.kernel);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims yi = unravel(i, ys);
    double acc = kind == PoolKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
    int64_t inside = 0, padded = 0;
    for (const Dims& k : taps) {
      int64_t xi = yi[0] * xs[0] + yi[1] * xs[1];
      bool valid = true, inPadded = true;
      for (size_t d = 0; d < nd; ++d) {
        int64_t pos = yi[2 + d] * p.strides[d] - p.padsBegin[d] + k[d] * p.dilations[d];
        valid = valid && pos >= 0 && pos < spatial[d];
        inPadded = inPadded && pos < spatial[d] + p.padsEnd[d];
        xi += pos * xs[2 + d];
      }
      if (inPadded) ++padded;
      if (!valid) continue;
      ++inside;
      double v = x.at(xi);
      acc = kind == PoolKind::kMax ? nanMax(acc, v) : acc + v;
    }
    if (kind == PoolKind::kAverage) acc /= static_cast<double>(countIncludePad ? padded : inside);
    y.at(i) = acc;
  }
  return rounded(y);
}

HostTensor refGlobalPool(const HostTensor& x, PoolKind kind) {
  Shape ys{x.shape[0], x.shape[1]};
  int64_t size = 1;
  for (size_t d = 2; d < x.shape.size(); ++d) ys.push_back(1), size *= x.shape[d];
  HostTensor y = zeros(ys);
  for (int64_t pl = 0; pl < x.shape[0] * x.shape[1]; ++pl) {
    double acc = kind == PoolKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
    for (int64_t k = 0; k < size; ++k) {
      double v = x.at(pl * size + k);
      acc = kind == PoolKind::kMax ? nanMax(acc, v) : acc + v;
    }
    y.at(pl) = kind == PoolKind::kAverage ? acc / static_cast<double>(size) : acc;
  }
  return rounded(y);
}

}  // namespace kiln::ir::reference
