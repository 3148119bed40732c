// The rules of ops that index with a tensor of indices: GatherND (batch_dims, index tuples of
// length k) and OneHot (depth as an input value, the new axis).
#pragma once

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

// GatherND's output dims: the indices' leading dims, then data's dims after batch_dims + k.
Dims gatherNdShape(const OpView& op);

// OneHot's new axis, normalised against the output rank (indices' rank + 1; default -1).
int64_t oneHotAxis(const OpView& op);
// OneHot's output dims: the indices' with floor(depth) inserted at the axis (unknown when depth
// is known only at run time).
Dims oneHotShape(const OpView& op);

}  // namespace kiln::opdef
