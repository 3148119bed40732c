// Machine code generation: a module becomes one relocatable object file.
#pragma once

#include <functional>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace kiln::codegen {

// Writes MODULE as an object file at PATH; throws kiln::Error when PATH cannot be written.
void emitObjectFile(llvm::Module& module, llvm::TargetMachine& tm, const std::string& path);
// An object holding only constants: FILL adds them to a fresh module for TM (in a context of its
// own, so it may run beside other code generation), which is written to PATH. WHAT names the
// object in errors ("the artifact object"). Throws kiln::Error when LLVM reports an error.
void emitDataObject(llvm::TargetMachine& tm, const std::string& path, const std::string& what,
                    const std::function<void(llvm::Module&)>& fill);
// MODULE as assembly text (for dumps and for tests that inspect instructions).
std::string emitAssembly(llvm::Module& module, llvm::TargetMachine& tm);

}  // namespace kiln::codegen
