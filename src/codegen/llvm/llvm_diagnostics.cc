// A vectorization hint that cannot be honoured is a warning in LLVM; printing it from a library
// would spam every user of kiln, and LLVM's default handler exits on errors, which a library must
// never do.
#include "llvm_diagnostics.h"

#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/raw_ostream.h>

#include "kiln/support/error.h"

namespace kiln::codegen {

void LlvmDiagnostics::attach(llvm::LLVMContext& ctx) {
  auto callback = [](const llvm::DiagnosticInfo* info, void* self) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info->print(printer);
    os.flush();
    static_cast<LlvmDiagnostics*>(self)->record(info->getSeverity(), std::move(text));
  };
  ctx.setDiagnosticHandlerCallBack(callback, this);
}

// Remarks and notes are dropped.
void LlvmDiagnostics::record(int severity, std::string text) {
  if (severity == llvm::DS_Error) {
    errors_.push_back(std::move(text));
  } else if (severity == llvm::DS_Warning) {
    warnings_.push_back(std::move(text));
  }
}

void LlvmDiagnostics::throwIfErrors(const std::string& what) const {
  if (errors_.empty()) return;
  std::string all;
  for (const std::string& e : errors_) all += "\n  " + e;
  throw Error(strCat(what, " failed in LLVM:", all));
}

}  // namespace kiln::codegen
