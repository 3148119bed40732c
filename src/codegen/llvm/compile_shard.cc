// Nothing LLVM owns is shared between shards: an LLVMContext and everything in it may only be used
// by one thread at a time, and a TargetMachine keeps per-compilation state.
#include "compile_shard.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "emit_object.h"
#include "kiln/support/error.h"
#include "llvm_diagnostics.h"
#include "optimize_module.h"
#include "target_machine.h"

namespace kiln::codegen {

ShardText compileShard(const ShardJob& job, const Target& target, int optLevel) {
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(target, optLevel);
  LlvmDiagnostics diagnostics;  // outlives the context that reports to it
  llvm::LLVMContext ctx;
  diagnostics.attach(ctx);
  std::unique_ptr<llvm::Module> module =
      generateModule(ctx, job.funcs, *tm, target.vectorLanes(), job.api);
  optimizeModule(*module, *tm, optLevel);
  ShardText text;
  if (job.keepIr) {
    llvm::raw_string_ostream os(text.ir);
    module->print(os, nullptr);
  }
  // Code generation changes the module, so the assembly comes from a copy of it.
  if (job.keepAsm) text.assembly = emitAssembly(*llvm::CloneModule(*module), *tm);
  emitObjectFile(*module, *tm, job.objectPath);
  diagnostics.throwIfErrors(strCat("generating code for ", target.str()));
  return text;
}

}  // namespace kiln::codegen
