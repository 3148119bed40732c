// Sliding-window geometry of Conv, ConvInteger, QLinearConv, MaxPool and AveragePool: kernel,
// strides, dilations and explicit or automatic pads resolved to explicit pads and output sizes,
// the one rule shape inference, the compiled kernels and the runtime's loops all follow.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

struct WindowGeometry {
  std::vector<int64_t> kernel;  // undilated kernel size per spatial dim
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> padsBegin;  // explicit pads; auto_pad SAME_* / VALID resolved
  std::vector<int64_t> padsEnd;
  std::vector<int64_t> output;  // output size per spatial dim
  // ceil_mode=1: the last window may run past padsEnd (it then covers fewer elements; it never
  // starts inside the end padding, as in ONNX Runtime and PyTorch).
  bool ceilMode = false;
};

// The window of OP (reads strides, dilations, pads, auto_pad, ceil_mode) over the spatial dims
// INPUT with kernel KERNEL (convolutions: the weights' spatial dims; pools: kernel_shape). Fails
// naming the node for invalid attributes or a window larger than the padded input.
WindowGeometry windowGeometry(const OpView& op, const Dims& input, const Dims& kernel);

}  // namespace kiln::opdef
