// The LLVM TargetMachine for a kiln Target: position-independent code at a given opt level.
#pragma once

#include <memory>

#include "kiln/codegen/llvm/target.h"

namespace llvm {
class TargetMachine;
}

namespace kiln::codegen {

// OPT_LEVEL is 0..3; throws kiln::Error when it is out of range or the triple is unknown.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const Target& target, int optLevel);

}  // namespace kiln::codegen
