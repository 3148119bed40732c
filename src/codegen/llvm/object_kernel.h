// A kernel an offload backend compiled itself, made fit to link into the library.
#pragma once

#include <string>

#include "kiln/codegen/llvm/build_library.h"

namespace kiln::codegen {

// Writes KERNEL's object to PATH with its entry function renamed to KERNEL.symbol and every other
// symbol it defines made local. Throws kiln::Error naming the backend and the kernel when the
// bytes are not a relocatable ELF object for TRIPLE's architecture, or do not define the entry as
// a global function of default visibility.
void writeObjectKernel(const ObjectKernel& kernel, const std::string& triple,
                       const std::string& path);

}  // namespace kiln::codegen
