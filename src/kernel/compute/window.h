// Sliding windows of convolution and pooling: resolved padding and the output range a kernel tap
// touches, so inner loops need no bounds checks.
#pragma once

#include <cstdint>
#include <vector>

#include "../index_math.h"
#include "kiln/ir/graph.h"

namespace kiln::kernel {

class LowerContext;

// Output columns per row tile of a window op whose whole output row does not fit in one local
// buffer (see kMaxLocalBufferBytes): the row accumulator then stays in L1 while the taps sweep it.
constexpr int64_t kWideRowTile = 4096;

// The row tile of a window op with OUT output columns of type T: the whole row when it fits in a
// local buffer, else kWideRowTile columns; knob "ow_tile" overrides, within the buffer limit.
int64_t rowTile(LowerContext& ctx, DataType t, int64_t out);

// One spatial dimension of a window op.
struct WindowDim {
  int64_t in = 1, out = 1, kernel = 1, stride = 1, dilation = 1, padBegin = 0, padEnd = 0;

  // Input position of output O, tap K (may lie in the padding).
  Expr inputPos(const Expr& o, const Expr& k) const;
  // [lo, hi) of outputs for which tap K reads inside the input.
  Expr outLo(const Expr& k) const;
  Expr outHi(const Expr& k) const;
  // [lo, hi) of taps that read inside the input for output O.
  Expr tapLo(const Expr& o) const;
  Expr tapHi(const Expr& o) const;
  // Taps that lie inside the padded input [-padBegin, in + padEnd) for output O (what an average
  // pool with count_include_pad divides by).
  Expr paddedTaps(const Expr& o) const;
};

// Resolves strides, dilations and pads (explicit or auto_pad) of NODE for the spatial dims of
// IN_SHAPE and OUT_SHAPE (both N, C, spatial...), with the given kernel extents.
std::vector<WindowDim> resolveWindow(const ir::Node& node, const Dims& inShape,
                                     const Dims& outShape, const Dims& kernel);

}  // namespace kiln::kernel
