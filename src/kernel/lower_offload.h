// An offload kernel: a kiln.Offload node, which its backend's runtime runs instead of kiln's code.
#pragma once

#include <string>

#include "kiln/kernel/lower.h"

namespace kiln::kernel {

// GROUP must hold one kiln.Offload node.
LoweredKernel lowerOffload(const FusedGroup& group, const std::string& symbol);

}  // namespace kiln::kernel
