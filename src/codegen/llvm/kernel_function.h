// One kernel's exported C-ABI entry point and its body.
#pragma once

#include "function_lowering.h"

namespace kiln::codegen {

// Emits `i32 name(ptr args)`, which loads the parameter pointers from args[i] and calls the
// internal `name.impl` whose parameters carry noalias, alignment and size facts.
void emitKernel(ModuleState& ms, const tir::PrimFunc& f);

}  // namespace kiln::codegen
