// Sliding-window geometry of Conv, MaxPool and AveragePool, with auto_pad resolved to explicit
// pads, so shape inference and kernels agree on where every window lies.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir {

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

// The window of NODE (reads strides, dilations, pads, auto_pad, ceil_mode) over the spatial dims
// INPUT with kernel KERNEL (Conv: the weights' spatial dims; pools: kernel_shape). Throws
// kiln::Error naming the node for invalid attributes or a window larger than the padded input.
WindowGeometry resolveWindow(const Node& node, const Shape& input, const Shape& kernel);

}  // namespace kiln::ir
