// The text form of the loop IR, for --dump-ir, golden tests and failure messages; parser.h reads it
// back.
#pragma once

#include <string>

#include "kiln/tir/prim_func.h"

namespace kiln::tir {

std::string printExpr(const Expr& e);
std::string printStmt(const Stmt& s, int indent = 0);
std::string printPrimFunc(const PrimFunc& f);
// F without its name and with its parameters named by position (p0, p1, ...): two kernels print
// the same exactly when they compute the same thing over the same argument list.
std::string printPrimFuncCanonical(const PrimFunc& f);

}  // namespace kiln::tir
