// Structural checks of a kernel that the constructors cannot make alone: every variable and buffer
// is in scope where it is used, names are not rebound, vector widths agree, constant indices stay
// inside their buffers.
#pragma once

#include <string>
#include <vector>

#include "kiln/tir/prim_func.h"

namespace kiln::tir {

// The problems found in F, one sentence each; empty when F is well formed.
std::vector<std::string> verify(const PrimFunc& f);
// Throws kiln::InternalError listing the problems (a lowering produced a broken kernel).
void verifyOrThrow(const PrimFunc& f);

}  // namespace kiln::tir
