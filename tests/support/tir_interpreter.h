// A reference interpreter of the loop IR, so lowering can be checked numerically without codegen:
// every load and store is bounds-checked and local buffers start as NaN to expose missing writes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kiln/tir/prim_func.h"

namespace kiln::tir::testing {

// Element storage of one buffer; every dtype is held as double (exact for the integers tests use).
using Storage = std::vector<double>;

// Runs F with ARGS[i] as the storage of F.params[i] and returns its status (0, or the status of
// the first assert that failed); throws std::runtime_error on an out-of-bounds access, a read of
// an unwritten local element or an unbound variable.
int32_t interpret(const PrimFunc& f, const std::vector<Storage*>& args);

}  // namespace kiln::tir::testing
