// The rules of the spatial ops other than convolutions and pools: GridSample (sampling X at grid
// points), RoiAlign (pooling regions of X) and MaxUnpool (MaxPool's values put back).
#pragma once

#include <string>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

struct GridSampleSpec {
  std::string mode, padding;  // bilinear/nearest/bicubic; zeros/border/reflection
  bool alignCorners = false;
  Dims out;  // [N, C, H_out, W_out]
};
GridSampleSpec gridSampleSpec(const OpView& op);

// RoiAlign's output dims [R, C, output_height, output_width], X, rois and batch_indices checked.
Dims roiAlignShape(const OpView& op);

struct UnpoolShape {
  Dims unpooled;  // the tensor MaxPool read, in its default shape (where the indices point)
  Dims out;       // output_shape when given (at least UNPOOLED in each spatial dim), else unpooled
};
UnpoolShape maxUnpoolShape(const OpView& op);

}  // namespace kiln::opdef
