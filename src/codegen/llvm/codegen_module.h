// Turning a list of kernels into one LLVM module for one target machine.
#pragma once

#include <memory>
#include <vector>

#include "kiln/tir/prim_func.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace kiln::codegen {

// A library is built from several modules; exactly one of them defines __kiln_backend_api.
enum class BackendApiSlot { kDefine, kDeclare };

// One module with the kernels FUNCS (each `i32 name(ptr args)`) and the __kiln_backend_api global
// (defined or only declared, per API), verified, not yet optimised. VECTOR_LANES is the width hint
// for vectorized loops.
std::unique_ptr<llvm::Module> generateModule(llvm::LLVMContext& ctx,
                                             const std::vector<tir::PrimFunc>& funcs,
                                             llvm::TargetMachine& tm, int vectorLanes,
                                             BackendApiSlot api);

}  // namespace kiln::codegen
