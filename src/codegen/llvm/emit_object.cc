// LLVM's code generator still runs on the legacy pass manager.
#include "emit_object.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "kiln/support/error.h"
#include "llvm_diagnostics.h"

namespace kiln::codegen {

void emitObjectFile(llvm::Module& module, llvm::TargetMachine& tm, const std::string& path) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec) throw Error(strCat("cannot write object file '", path, "': ", ec.message()));
  llvm::legacy::PassManager passes;
  bool unsupported =
      tm.addPassesToEmitFile(passes, out, nullptr, llvm::CodeGenFileType::ObjectFile);
  KILN_CHECK(!unsupported, "LLVM cannot emit object files for ", tm.getTargetTriple().str());
  passes.run(module);
  out.close();
  if (out.has_error()) {
    std::string reason = out.error().message();
    out.clear_error();
    throw Error(strCat("cannot write object file '", path, "': ", reason));
  }
}

std::string emitAssembly(llvm::Module& module, llvm::TargetMachine& tm) {
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream out(text);
  llvm::legacy::PassManager passes;
  bool unsupported =
      tm.addPassesToEmitFile(passes, out, nullptr, llvm::CodeGenFileType::AssemblyFile);
  KILN_CHECK(!unsupported, "LLVM cannot emit assembly for ", tm.getTargetTriple().str());
  passes.run(module);
  return std::string(text.str());
}

void emitDataObject(llvm::TargetMachine& tm, const std::string& path, const std::string& what,
                    const std::function<void(llvm::Module&)>& fill) {
  LlvmDiagnostics diagnostics;  // outlives the context that reports to it
  llvm::LLVMContext ctx;
  diagnostics.attach(ctx);
  llvm::Module module("kiln.data", ctx);
  module.setTargetTriple(tm.getTargetTriple().str());
  module.setDataLayout(tm.createDataLayout());
  fill(module);
  emitObjectFile(module, tm, path);
  diagnostics.throwIfErrors(strCat("generating ", what, " for ", tm.getTargetTriple().str()));
}

}  // namespace kiln::codegen
