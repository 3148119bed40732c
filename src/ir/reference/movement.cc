// Reference data movement for Pad, Trilu, Tile, Split, GatherElements, DepthToSpace and
// SpaceToDepth, written as the ONNX specification (and numpy.pad for the pad modes) describes them.

#include "kiln/ir/reference.h"

namespace kiln::ir::reference {

namespace {

// numpy.pad's source index for output position P (already shifted by the begin pad) in a dim of
// size N, or -1 for a constant fill.
int64_t padSource(int64_t p, int64_t n, const std::string& mode) {
  if (p >= 0 && p < n) return p;
  if (mode == "constant") return -1;
  if (mode == "edge") return p < 0 ? 0 : n - 1;
  if (mode == "wrap") return ((p % n) + n) % n;
  if (n == 1) return 0;  // reflect
  while (p < 0 || p >= n) p = p < 0 ? -p : 2 * (n - 1) - p;
  return p;
}

}  // namespace

HostTensor refPad(const HostTensor& x, const Dims& pads, const std::string& mode, double value) {
  size_t rank = x.shape.size();
  Shape out = x.shape;
  for (size_t d = 0; d < rank; ++d) out[d] += pads[d] + pads[d + rank];
  HostTensor y = zeros(out, x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims idx = unravel(i, out);
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      idx[d] = padSource(idx[d] - pads[d], x.shape[d], mode);
      inside = inside && idx[d] >= 0;
    }
    y.at(i) = inside ? x.at(ravel(idx, x.shape)) : value;
  }
  return rounded(y);
}

HostTensor refTrilu(const HostTensor& x, int64_t k, bool upper) {
  size_t rank = x.shape.size();
  HostTensor y = x;
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims idx = unravel(i, x.shape);
    int64_t diagonal = idx[rank - 1] - idx[rank - 2];
    if (upper ? diagonal < k : diagonal > k) y.at(i) = 0;
  }
  return y;
}

HostTensor refTile(const HostTensor& x, const Dims& repeats) {
  Shape out = x.shape;
  for (size_t d = 0; d < out.size(); ++d) out[d] *= repeats[d];
  HostTensor y = zeros(out, x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims idx = unravel(i, out);
    for (size_t d = 0; d < idx.size(); ++d) idx[d] %= x.shape[d];
    y.at(i) = x.at(ravel(idx, x.shape));
  }
  return y;
}

std::vector<HostTensor> refSplit(const HostTensor& x, int64_t axis, const Dims& sizes) {
  auto a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(x.shape.size()) : axis);
  std::vector<HostTensor> outs;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    Shape s = x.shape;
    s[a] = size;
    HostTensor y = zeros(s, x.dtype);
    for (int64_t i = 0; i < y.numel(); ++i) {
      Dims idx = unravel(i, s);
      idx[a] += offset;
      y.at(i) = x.at(ravel(idx, x.shape));
    }
    outs.push_back(y);
    offset += size;
  }
  return outs;
}

HostTensor refGatherElements(const HostTensor& x, const HostTensor& indices, int64_t axis) {
  auto a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(x.shape.size()) : axis);
  HostTensor y = zeros(indices.shape, x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims idx = unravel(i, indices.shape);
    auto k = static_cast<int64_t>(indices.at(i));
    idx[a] = k < 0 ? k + x.shape[a] : k;
    y.at(i) = x.at(ravel(idx, x.shape));
  }
  return y;
}

// DCR: input channel (bh * b + bw) * C' + c; CRD: (c * b + bh) * b + bw.
HostTensor refDepthToSpace(const HostTensor& x, int64_t block, bool crd) {
  int64_t oc = x.shape[1] / (block * block);
  Shape out{x.shape[0], oc, x.shape[2] * block, x.shape[3] * block};
  HostTensor y = zeros(out, x.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    Dims o = unravel(i, out);
    int64_t bh = o[2] % block, bw = o[3] % block;
    int64_t c = crd ? (o[1] * block + bh) * block + bw : (bh * block + bw) * oc + o[1];
    y.at(i) = x.at(ravel({o[0], c, o[2] / block, o[3] / block}, x.shape));
  }
  return y;
}

// Output channel (bh * b + bw) * C + c holds input pixel (h * b + bh, w * b + bw) of channel c.
HostTensor refSpaceToDepth(const HostTensor& x, int64_t block) {
  int64_t c = x.shape[1];
  Shape out{x.shape[0], c * block * block, x.shape[2] / block, x.shape[3] / block};
  HostTensor y = zeros(out, x.dtype);
  for (int64_t n = 0; n < x.shape[0]; ++n) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t h = 0; h < x.shape[2]; ++h) {
        for (int64_t w = 0; w < x.shape[3]; ++w) {
          int64_t oc = ((h % block) * block + w % block) * c + ch;
          y.at(ravel({n, oc, h / block, w / block}, out)) = x.at(ravel({n, ch, h, w}, x.shape));
        }
      }
    }
  }
  return y;
}

}  // namespace kiln::ir::reference
