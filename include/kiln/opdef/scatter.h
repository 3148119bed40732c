// The rules of the scatter ops: ScatterElements (and Scatter, its opset 9 name) and ScatterND,
// whose output has data's shape and whose indices and updates must fit it.
#pragma once

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

// ScatterElements: indices and updates of one shape, of data's rank; returns the normalised axis.
int64_t scatterElementsAxis(const OpView& op);
// ScatterND: indices [..., k] with k <= data's rank, updates indices' leading dims then data's
// dims after k; returns k (kUnknownDim when not known now).
int64_t scatterNdDepth(const OpView& op);

}  // namespace kiln::opdef
