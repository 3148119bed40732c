// The rules of the ops that reduce along axes: the Reduce* family (axes as an attribute, or as
// input 1 from opset 13 for ReduceSum and 18 for the others; keepdims; noop_with_empty_axes) and
// TopK (K as an attribute before opset 10, then as input 1).
#pragma once

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

// Per input dim, whether a Reduce* op reduces it; nullopt when its axes are not known now.
std::optional<std::vector<bool>> reducedDims(const OpView& op);
// A Reduce* op's output dims: a reduced dim becomes 1 (keepdims) or goes.
DimList reduceShape(const OpView& op);

int64_t topKAxis(const OpView& op);  // normalised `axis` (default -1)
// TopK's values and indices dims: the input's with the axis cut to K (unknown when K is).
Dims topKShape(const OpView& op);

}  // namespace kiln::opdef
