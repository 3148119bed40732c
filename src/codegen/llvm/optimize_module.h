// LLVM's standard optimisation pipeline, as clang runs it at -O<level>.
#pragma once

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace kiln::codegen {

void optimizeModule(llvm::Module& module, llvm::TargetMachine& tm, int optLevel);

}  // namespace kiln::codegen
