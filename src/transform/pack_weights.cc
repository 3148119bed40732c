// The packing loops: each walks the packed array in order and reads the source element it holds,
// so every padded position gets the fill value exactly once.
#include "pack_weights.h"

#include <algorithm>

#include "kiln/support/error.h"

namespace kiln::transform {
namespace {

using runtime::DataType;
using runtime::Shape;

int64_t blocks(int64_t n, int64_t b) { return (n + b - 1) / b; }

float at(const NDArray& a, int64_t i) { return a.data<float>()[i]; }

class Writer {
 public:
  Writer(const Shape& shape, DataType t) : out_(NDArray::empty(shape, t)) {}
  void put(double v) { out_.data<float>()[next_++] = static_cast<float>(v); }
  NDArray done() {
    KILN_CHECK(next_ == out_.numel(), "packing wrote ", next_, " of ", out_.numel(), " elements");
    return out_;
  }

 private:
  NDArray out_;
  int64_t next_ = 0;
};

// The blocked kernels are float32 only, and so is every packed array.
void requireFloat(const NDArray& a) {
  KILN_CHECK(a.dtype() == DataType::float32(), "packing a ", a.dtype().str(), " array");
}

}  // namespace

NDArray packConvWeightsBlocked(const NDArray& w, int64_t b) {
  requireFloat(w);
  const Shape& s = w.shape();
  int64_t oc = s[0], ic = s[1], kh = s[2], kw = s[3];
  Writer out({blocks(oc, b), blocks(ic, b), kh, kw, b, b}, w.dtype());
  for (int64_t ob = 0; ob < blocks(oc, b); ++ob)
    for (int64_t ib = 0; ib < blocks(ic, b); ++ib)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x)
          for (int64_t i = 0; i < b; ++i)
            for (int64_t o = 0; o < b; ++o) {
              int64_t co = ob * b + o, ci = ib * b + i;
              out.put(co < oc && ci < ic ? at(w, ((co * ic + ci) * kh + y) * kw + x) : 0.0);
            }
  return out.done();
}

NDArray packConvWeightsPlainInput(const NDArray& w, int64_t b) {
  requireFloat(w);
  const Shape& s = w.shape();
  int64_t oc = s[0], ic = s[1], kh = s[2], kw = s[3];
  Writer out({blocks(oc, b), ic, kh, kw, b}, w.dtype());
  for (int64_t ob = 0; ob < blocks(oc, b); ++ob)
    for (int64_t ci = 0; ci < ic; ++ci)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x)
          for (int64_t o = 0; o < b; ++o) {
            int64_t co = ob * b + o;
            out.put(co < oc ? at(w, ((co * ic + ci) * kh + y) * kw + x) : 0.0);
          }
  return out.done();
}

NDArray packDepthwiseWeights(const NDArray& w, int64_t b) {
  requireFloat(w);
  const Shape& s = w.shape();
  int64_t c = s[0], kh = s[2], kw = s[3];
  Writer out({blocks(c, b), kh, kw, b}, w.dtype());
  for (int64_t cb = 0; cb < blocks(c, b); ++cb)
    for (int64_t y = 0; y < kh; ++y)
      for (int64_t x = 0; x < kw; ++x)
        for (int64_t l = 0; l < b; ++l) {
          int64_t ch = cb * b + l;
          out.put(ch < c ? at(w, (ch * kh + y) * kw + x) : 0.0);
        }
  return out.done();
}

NDArray packBias(const NDArray& bias, int64_t b) {
  requireFloat(bias);
  int64_t c = bias.numel();
  Writer out({blocks(c, b) * b}, bias.dtype());
  for (int64_t i = 0; i < blocks(c, b) * b; ++i) out.put(i < c ? at(bias, i) : 0.0);
  return out.done();
}

NDArray blockConstant(const NDArray& c, int64_t channels, int64_t b, double fill) {
  requireFloat(c);
  Shape s = c.shape();
  KILN_CHECK(s.size() <= 4, "blocking a constant of rank ", s.size());
  while (s.size() < 4) s.insert(s.begin(), 1);
  int64_t a = s[0], ch = s[1], h = s[2], w = s[3];
  KILN_CHECK(ch == channels || ch == 1, "blocking a constant of ", ch, " channels for ", channels);
  if (ch == 1) return c.clone().view({a, 1, h, w, 1}, c.dtype());
  Writer out({a, blocks(ch, b), h, w, b}, c.dtype());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t cb = 0; cb < blocks(ch, b); ++cb)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          for (int64_t l = 0; l < b; ++l) {
            int64_t k = cb * b + l;
            out.put(k < ch ? at(c, ((i * ch + k) * h + y) * w + x) : fill);
          }
  return out.done();
}

// Matrices reach gigabytes (a language model's projections), so this one loop runs over tiles of
// TILE rows of K: within a tile, every panel's rows are read from lines just read, and the
// packed array is written in runs of TILE x B elements instead of one element at a time.
NDArray packMatmulB(const NDArray& bm, bool transposed, int64_t b) {
  requireFloat(bm);
  const Shape& s = bm.shape();
  int64_t k = transposed ? s[1] : s[0], n = transposed ? s[0] : s[1];
  NDArray out = NDArray::empty({blocks(n, b), k, b}, bm.dtype());
  const float* src = bm.data<float>();
  float* dst = out.data<float>();
  constexpr int64_t kTile = 16;
  for (int64_t k0 = 0; k0 < k; k0 += kTile) {
    int64_t k1 = std::min(k, k0 + kTile);
    for (int64_t jb = 0; jb < blocks(n, b); ++jb) {
      float* panel = dst + jb * k * b;
      for (int64_t kk = k0; kk < k1; ++kk) {
        for (int64_t l = 0; l < b; ++l) {
          int64_t j = jb * b + l;
          panel[kk * b + l] = j >= n ? 0.0f : src[transposed ? j * k + kk : kk * n + j];
        }
      }
    }
  }
  return out;
}

}  // namespace kiln::transform
