// Split's rules: sizes as an attribute (before opset 13) or an input (opset 1 and 13 on), the
// num_outputs attribute (opset 18, the last part taking the rest), or equal parts, one per output.
#pragma once

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

int64_t splitAxis(const OpView& op);  // normalised `axis` (default 0)
// Each output's dims: the input's, with the axis cut into the parts; a part's size is unknown when
// the sizes or the axis dim are known only at run time.
std::vector<DimList> splitShapes(const OpView& op);

}  // namespace kiln::opdef
