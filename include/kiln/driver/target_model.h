// The kernel layer's model of a code generation target (vector width, registers, caches).
#pragma once

#include "kiln/codegen/llvm/target.h"
#include "kiln/kernel/target_model.h"

namespace kiln::driver {

// From TARGET's features; cache sizes are read from this machine when TARGET is the host's
// triple and CPU, else typical values for the instruction set.
kernel::TargetModel targetModelOf(const codegen::Target& target);

}  // namespace kiln::driver
