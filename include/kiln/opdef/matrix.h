// The rules of the small matrix ops the runtime executes: Det (of the last two dims) and EyeLike.
#pragma once

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

Dims detShape(const OpView& op);      // [..., M, M] -> [...]
Dims eyeLikeShape(const OpView& op);  // a 2-D input's dims

}  // namespace kiln::opdef
