// Reads the text that printer.h writes, so kernels can be written by hand in tests and lowered
// kernels compared against golden files.
#pragma once

#include <string>
#include <vector>

#include "kiln/tir/prim_func.h"

namespace kiln::tir {

// Parses one or more `kernel NAME(...) { ... }` definitions. Throws kiln::Error naming the line,
// column, what was found and what was expected.
std::vector<PrimFunc> parsePrimFuncs(const std::string& text);
PrimFunc parsePrimFunc(const std::string& text);  // exactly one kernel

}  // namespace kiln::tir
