// The direct convolution of any spatial rank that the runtime's convolutions share: ConvInteger
// and QLinearConv (integers, zero points subtracted) and Conv on more than two spatial dims.
#pragma once

#include <vector>

#include "kiln/runtime/runtime_op.h"

namespace kiln::runtime::ops {

struct ConvSums {
  Shape shape;               // the output's: N, output channels, spatial dims
  std::vector<double> sums;  // row-major, one per output element
};

// X - X_ZP convolved with W - W_ZP (a zero point per tensor, or per output channel), by the node's
// group, strides, dilations and explicit or automatic pads, summed in double (exact for integers).
ConvSums convSums(const RuntimeOpContext& ctx, const NDArray& x, const NDArray& w,
                  const std::vector<double>& xzp, const std::vector<double>& wzp);

}  // namespace kiln::runtime::ops
