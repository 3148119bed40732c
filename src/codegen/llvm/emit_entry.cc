// An AOT entry is straight-line code: per kernel, fill one stack array with argument pointers
// (a base pointer plus a constant offset), call, and stop at the first non-zero status. Nothing
// is interpreted at run time.
#include "emit_entry.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>

#include "emit_object.h"
#include "kiln/support/error.h"
#include "llvm_diagnostics.h"
#include "optimize_module.h"
#include "target_machine.h"

namespace kiln::codegen {
namespace {

void emitEntry(llvm::Module& module, const EntryFunction& entry) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* i8 = llvm::Type::getInt8Ty(ctx);
  auto* kernelType = llvm::FunctionType::get(i32, {ptr}, false);
  auto* type = llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr}, false);
  auto* fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, entry.symbol, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* tables[3] = {fn->getArg(0), fn->getArg(1), fn->getArg(2)};
  llvm::Value* workspace = fn->getArg(3);

  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  size_t most = 1;
  for (const EntryCall& c : entry.calls) most = std::max(most, c.args.size());
  llvm::Value* args = b.CreateAlloca(llvm::ArrayType::get(ptr, most), nullptr, "args");
  for (size_t k = 0; k < entry.calls.size(); ++k) {
    const EntryCall& call = entry.calls[k];
    for (size_t j = 0; j < call.args.size(); ++j) {
      const EntryArg& a = call.args[j];
      llvm::Value* base = workspace;
      if (a.base != EntryArg::Base::kWorkspace) {
        llvm::Value* table = tables[static_cast<int>(a.base)];
        base = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, table, a.index));
      }
      llvm::Value* at = b.CreateConstInBoundsGEP1_64(i8, base, a.offset);
      b.CreateStore(at, b.CreateConstInBoundsGEP1_64(ptr, args, j));
    }
    llvm::FunctionCallee kernel = module.getOrInsertFunction(call.kernel, kernelType);
    llvm::Value* status = b.CreateCall(kernel, {args});
    auto* failed = llvm::BasicBlock::Create(ctx, "failed", fn);
    auto* next = llvm::BasicBlock::Create(ctx, "next", fn);
    b.CreateCondBr(b.CreateICmpNE(status, b.getInt32(0)), failed, next);
    b.SetInsertPoint(failed);
    b.CreateRet(status);
    b.SetInsertPoint(next);
  }
  b.CreateRet(b.getInt32(0));
}

}  // namespace

std::string emitEntryObject(const std::vector<EntryFunction>& entries, const Target& target,
                            int optLevel, const std::string& path, bool keepIr) {
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(target, optLevel);
  LlvmDiagnostics diagnostics;  // outlives the context that reports to it
  llvm::LLVMContext ctx;
  diagnostics.attach(ctx);
  llvm::Module module("kiln.entries", ctx);
  module.setTargetTriple(tm->getTargetTriple().str());
  module.setDataLayout(tm->createDataLayout());
  for (const EntryFunction& e : entries) emitEntry(module, e);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  KILN_CHECK(!llvm::verifyModule(module, &os), "generated entry IR is invalid: ", os.str());
  optimizeModule(module, *tm, optLevel);
  std::string ir;
  if (keepIr) {
    llvm::raw_string_ostream irOs(ir);
    module.print(irOs, nullptr);
  }
  emitObjectFile(module, *tm, path);
  diagnostics.throwIfErrors(strCat("generating the entry functions for ", target.str()));
  return ir;
}

}  // namespace kiln::codegen
