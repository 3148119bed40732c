// Machine code generation: a module becomes one relocatable object file.
#pragma once

#include <string>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace kiln::codegen {

// Writes MODULE as an object file at PATH; throws kiln::Error when PATH cannot be written.
void emitObjectFile(llvm::Module& module, llvm::TargetMachine& tm, const std::string& path);
// MODULE as assembly text (for dumps and for tests that inspect instructions).
std::string emitAssembly(llvm::Module& module, llvm::TargetMachine& tm);

}  // namespace kiln::codegen
