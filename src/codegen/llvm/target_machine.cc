// Code for shared libraries must be position independent; the rest follows the target's defaults.
#include "target_machine.h"

#include <llvm/MC/TargetRegistry.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include "kiln/support/error.h"
#include "llvm_targets.h"

namespace kiln::codegen {

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const Target& target, int optLevel) {
  if (optLevel < 0 || optLevel > 3) {
    throw Error(strCat("optimisation level ", optLevel, " is out of range; expected 0 to 3"));
  }
  const llvm::Target& llvmTarget = lookupLlvmTarget(target.triple);
  llvm::TargetOptions options;
  // Fuse multiply-add only where the IR allows it (the `contract` flag kiln sets).
  options.AllowFPOpFusion = llvm::FPOpFusion::Standard;
  static constexpr llvm::CodeGenOptLevel kLevels[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less, llvm::CodeGenOptLevel::Default,
      llvm::CodeGenOptLevel::Aggressive};
  std::unique_ptr<llvm::TargetMachine> tm(
      llvmTarget.createTargetMachine(target.triple, target.cpu, target.features, options,
                                     llvm::Reloc::PIC_, std::nullopt, kLevels[optLevel]));
  if (tm == nullptr) {
    throw Error(strCat("LLVM cannot generate code for target '", target.str(), "'"));
  }
  return tm;
}

}  // namespace kiln::codegen
