// LLVM reports optimisation remarks and warnings through its context; by default it prints them
// and exits the process on errors. kiln keeps them instead.
#pragma once

#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
}

namespace kiln::codegen {

class LlvmDiagnostics {
 public:
  // Routes CTX's diagnostics here for the lifetime of CTX (this object must outlive it).
  void attach(llvm::LLVMContext& ctx);
  // Throws kiln::Error listing the errors LLVM reported, if any.
  void throwIfErrors(const std::string& what) const;
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void record(int severity, std::string text);

  std::vector<std::string> errors_;
  std::vector<std::string> warnings_;  // e.g. "loop not vectorized", kept for debugging
};

}  // namespace kiln::codegen
