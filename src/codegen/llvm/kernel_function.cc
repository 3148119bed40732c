// The exported wrapper keeps the runtime's single C signature while the body gets typed, annotated
// parameters (LLVM turns them into alias scopes when it inlines the body).
#include "kernel_function.h"

#include <llvm/IR/Module.h>

#include "kiln/support/error.h"

namespace kiln::codegen {
namespace {

llvm::Function* emitBody(ModuleState& ms, const tir::PrimFunc& f) {
  llvm::LLVMContext& ctx = ms.module->getContext();
  std::vector<llvm::Type*> params(f.params.size(), llvm::PointerType::getUnqual(ctx));
  auto* type = llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), params, false);
  auto* fn =
      llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, f.name + ".impl", ms.module);
  setCommonAttributes(fn, ms);
  FunctionLowering lowering(ms, fn, /*serialOnly=*/false);
  for (unsigned i = 0; i < f.params.size(); ++i) {
    KILN_CHECK(f.params[i] != nullptr, "kernel ", f.name, " has a null parameter ", i);
    setBufferParamAttributes(fn, i, *f.params[i]);
    fn->getArg(i)->setName(f.params[i]->name);
    lowering.bindBuffer(f.params[i].get(), fn->getArg(i));
  }
  lowering.lowerStmt(f.body);
  lowering.finish();
  return fn;
}

}  // namespace

void emitKernel(ModuleState& ms, const tir::PrimFunc& f) {
  KILN_CHECK(!f.name.empty(), "kernel without a name");
  KILN_CHECK(ms.module->getNamedValue(f.name) == nullptr, "kernel symbol '", f.name,
             "' is defined twice or clashes with a kiln symbol");
  llvm::LLVMContext& ctx = ms.module->getContext();
  auto* ptrType = llvm::PointerType::getUnqual(ctx);
  auto* type = llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), {ptrType}, false);
  auto* fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, f.name, ms.module);
  llvm::Function* body = emitBody(ms, f);
  setCommonAttributes(fn, ms);
  fn->addParamAttr(0, llvm::Attribute::NoCapture);
  fn->addParamAttr(0, llvm::Attribute::ReadOnly);
  fn->getArg(0)->setName("args");

  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Align ptrAlign = ms.module->getDataLayout().getPointerABIAlignment(0);
  std::vector<llvm::Value*> pointers;
  for (unsigned i = 0; i < f.params.size(); ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(ptrType, fn->getArg(0), i);
    pointers.push_back(b.CreateAlignedLoad(ptrType, slot, ptrAlign, f.params[i]->name));
  }
  b.CreateRet(b.CreateCall(body, pointers));
}

}  // namespace kiln::codegen
