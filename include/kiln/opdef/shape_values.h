// The values of the small integer tensors a shape computation passes along (Shape's output and
// what exported models compute from it with Gather, Concat, Unsqueeze, arithmetic...), as sizes
// in the graph's symbols: what lets a Reshape, Expand or ConstantOfShape after them know its
// output sizes at compile time.
#pragma once

#include <optional>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

// The elements of OP's output 0 (row-major) as sizes, from its inputs' known sizes
// (OpView::inputSizes) and dims; nullopt when OP is not a shape computation kiln follows, or an
// element it needs is not known.
std::optional<DimList> shapeValues(const OpView& op);

}  // namespace kiln::opdef
