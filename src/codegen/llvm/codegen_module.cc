// The kernels of one shard go into one module; the backend API global they call through is defined
// in exactly one module of the library, so the runtime has a single slot to fill in.
#include "codegen_module.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "function_lowering.h"
#include "kernel_function.h"
#include "kiln/runtime/backend_api.h"
#include "kiln/support/error.h"

namespace kiln::codegen {

std::unique_ptr<llvm::Module> generateModule(llvm::LLVMContext& ctx,
                                             const std::vector<tir::PrimFunc>& funcs,
                                             llvm::TargetMachine& tm, int vectorLanes,
                                             BackendApiSlot api) {
  auto module = std::make_unique<llvm::Module>("kiln", ctx);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());

  // Written by the runtime after loading the library, so it must stay a mutable, exported pointer.
  auto* ptrType = llvm::PointerType::getUnqual(ctx);
  llvm::Constant* init =
      api == BackendApiSlot::kDefine ? llvm::ConstantPointerNull::get(ptrType) : nullptr;
  auto* apiSlot =
      new llvm::GlobalVariable(*module, ptrType, /*isConstant=*/false,
                               llvm::GlobalValue::ExternalLinkage, init, KILN_SYMBOL_BACKEND_API);
  apiSlot->setAlignment(module->getDataLayout().getPointerABIAlignment(0));

  ModuleState ms;
  ms.module = module.get();
  ms.backendApi = apiSlot;
  ms.vectorLanes = vectorLanes;
  ms.cpu = tm.getTargetCPU().str();
  ms.features = tm.getTargetFeatureString().str();
  for (const tir::PrimFunc& f : funcs) emitKernel(ms, f);

  std::string problems;
  llvm::raw_string_ostream os(problems);
  KILN_CHECK(!llvm::verifyModule(*module, &os), "generated LLVM IR is invalid: ", os.str());
  return module;
}

}  // namespace kiln::codegen
