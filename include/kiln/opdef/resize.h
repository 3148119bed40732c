// Resize's and Upsample's geometry: which inputs carry scales, sizes and the region of interest in
// each opset, and the output size floor(dim * span * scale) or the given sizes; read the same way
// for the compiler's shape inference and the runtime's interpolation.
#pragma once

#include <vector>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

struct ResizeGeometry {
  Dims out;                   // kUnknownDim where not known now
  std::vector<double> scale;  // per dim: output over input size (given, or sizes / input dims)
  std::vector<double> roi;    // starts then ends, normalised; [0.., 1..] unless given
  // Upsample and Resize-10 place output positions by dividing by the scale and rounding down
  // ("asymmetric", "floor") whatever the attributes say.
  bool legacyPositions = false;
};

// Inputs: Upsample-7 (X; float scales attribute), Upsample-9 (X, scales), Resize-10 (X, scales),
// Resize-11+ (X, roi, scales, sizes); exactly one of scales and sizes.
ResizeGeometry resizeGeometry(const OpView& op);

}  // namespace kiln::opdef
