// One kernel of the loop IR: a C-ABI function `int32_t name(void* const* args)` whose args are the
// data pointers of its buffer parameters, in order.
#pragma once

#include <string>
#include <vector>

#include "kiln/tir/stmt.h"

namespace kiln::tir {

struct PrimFunc {
  std::string name;
  std::vector<Buffer> params;
  Stmt body;
};

}  // namespace kiln::tir
