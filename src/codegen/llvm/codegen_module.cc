// Every kernel of a library goes into one module, so LLVM sees them together and the backend API
// global is defined once.
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
                                             const std::vector<kernel::PrimFunc>& funcs,
                                             llvm::TargetMachine& tm, int vectorLanes) {
  auto module = std::make_unique<llvm::Module>("kiln", ctx);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());

  // Written by the runtime after loading the library, so it must stay a mutable, exported pointer.
  auto* ptrType = llvm::PointerType::getUnqual(ctx);
  auto* api = new llvm::GlobalVariable(
      *module, ptrType, /*isConstant=*/false, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantPointerNull::get(ptrType), KILN_SYMBOL_BACKEND_API);
  api->setAlignment(module->getDataLayout().getPointerABIAlignment(0));

  ModuleState ms;
  ms.module = module.get();
  ms.backendApi = api;
  ms.vectorLanes = vectorLanes;
  ms.cpu = tm.getTargetCPU().str();
  ms.features = tm.getTargetFeatureString().str();
  for (const kernel::PrimFunc& f : funcs) emitKernel(ms, f);

  std::string problems;
  llvm::raw_string_ostream os(problems);
  KILN_CHECK(!llvm::verifyModule(*module, &os), "generated LLVM IR is invalid: ", os.str());
  return module;
}

}  // namespace kiln::codegen
