// What an outlined parallel loop body must receive from the function around it.
#pragma once

#include <string>
#include <vector>

#include "kiln/tir/prim_func.h"

namespace kiln::codegen {

struct FreeVars {
  std::vector<std::string> vars;     // sorted by name
  std::vector<tir::Buffer> buffers;  // in order of first use
};

// The variables BODY reads without binding them (other than BOUND) and the buffers it touches
// without allocating them.
FreeVars collectFreeVars(const tir::Stmt& body, const std::string& bound);

}  // namespace kiln::codegen
