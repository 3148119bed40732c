// The weights of a static library, as an object of their own.
#pragma once

#include <string>
#include <vector>

#include "kiln/codegen/llvm/build_library.h"

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace kiln::codegen {

// Writes every table's weights (a 64-byte aligned constant) and pointer table to the object PATH.
void emitWeightsObject(const std::vector<WeightTable>& tables, llvm::TargetMachine& tm,
                       const std::string& path);

}  // namespace kiln::codegen
