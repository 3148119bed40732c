// The output shapes of the ops that give the same elements a new shape: Reshape (0 copies an input
// dim unless allowzero, one -1 takes what is left), Squeeze, Unsqueeze and Flatten, and which dims
// Shape returns. Dims known only at run time stay unknown; a rank that cannot be known is an error.
#pragma once

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

DimList reshapeShape(const OpView& op);    // target: attribute `shape` (opset < 5) or input 1
DimList squeezeShape(const OpView& op);    // axes: attribute (opset < 13) or input 1; none: all 1s
DimList unsqueezeShape(const OpView& op);  // axes: attribute (opset < 13) or input 1
DimList flattenShape(const OpView& op);    // axis in [-rank, rank], default 1

// The input dims Shape returns: [start, end), each negative one counted from the end and clamped
// to [0, rank] (opset 15; before, start 0 and end rank).
struct DimRange {
  int64_t start, end;
};
DimRange shapeOpRange(const OpView& op);

}  // namespace kiln::opdef
