// Registers all of LLVM's built-in targets once, so that cross-compilation needs no extra setup.
#include "llvm_targets.h"

#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <mutex>

#include "kiln/support/error.h"

namespace kiln::codegen {

void initializeLlvmTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

const llvm::Target& lookupLlvmTarget(const std::string& triple) {
  initializeLlvmTargets();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) {
    std::string built;
    for (const llvm::Target& t : llvm::TargetRegistry::targets()) {
      built += built.empty() ? "" : ", ";
      built += t.getName();
    }
    throw Error(strCat("unknown target triple '", triple, "' (", error,
                       "); expected a triple of one of the built-in LLVM targets: ", built));
  }
  // Artifacts are little-endian ELF shared libraries that a runtime dlopens; other object
  // formats would only fail later, in the linker, with a message about object files.
  llvm::Triple t(llvm::Triple::normalize(triple));
  if (!t.isOSBinFormatELF()) {
    throw Error(strCat("target triple '", triple,
                       "' makes objects kiln cannot package: artifacts are ELF shared libraries "
                       "(Linux and similar); use a triple such as ",
                       t.getArchName().str(), "-linux-gnu"));
  }
  if (!t.isLittleEndian()) {
    throw Error(strCat("target triple '", triple,
                       "' is big-endian; kiln's runtime reads little-endian artifacts only"));
  }
  return *target;
}

bool isHostTriple(const std::string& triple) {
  llvm::Triple t(llvm::Triple::normalize(triple));
  llvm::Triple host(llvm::sys::getDefaultTargetTriple());
  return t.getArch() == host.getArch() && t.getSubArch() == host.getSubArch() &&
         t.getOS() == host.getOS() && t.getEnvironment() == host.getEnvironment();
}

}  // namespace kiln::codegen
