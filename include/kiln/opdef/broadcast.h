// Numpy-style (multidirectional) broadcasting, and the ops that repeat elements to a new shape:
// Expand and Tile. A dim known only at run time broadcasts against 1 or an equal size; two equal
// symbolic sizes give that size.
#pragma once

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

// A and B broadcast together (trailing dims aligned; a 1 stretches to the other size).
DimList broadcastDims(const OpView& op, const DimList& a, const DimList& b);
// Every given input's shape broadcast together: the binary ops, Where, Sum/Max/Min/Mean.
DimList broadcastInputs(const OpView& op);
// Expand: input 0 broadcast with the shape given as input 1.
DimList expandShape(const OpView& op);
// Tile: input 0's dims times the repeats given as input 1 (one per dim, each >= 0).
Dims tileShape(const OpView& op);

}  // namespace kiln::opdef
