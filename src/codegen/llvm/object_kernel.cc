// Object kernels are checked before the linker sees them, so a backend's mistake is reported in
// its own terms rather than as a linker or loader failure; the rename and the localising are
// llvm-objcopy's, run in process.
#include "object_kernel.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/ObjCopy/CommonConfig.h>
#include <llvm/ObjCopy/ELF/ELFConfig.h>
#include <llvm/ObjCopy/ELF/ELFObjcopy.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include "kiln/support/error.h"
#include "kiln/support/file.h"

namespace kiln::codegen {
namespace {

std::string described(const ObjectKernel& k) {
  return strCat("the object backend '", k.backend, "' compiled for kernel '", k.symbol, "'");
}

// Why the entry symbol of ELF cannot be the kernel, or "" when it can.
std::string entryProblem(const llvm::object::ELFObjectFileBase& elf, const std::string& entry) {
  for (const llvm::object::ELFSymbolRef& sym : elf.symbols()) {
    llvm::Expected<llvm::StringRef> name = sym.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name != entry) continue;
    llvm::Expected<uint32_t> flags = sym.getFlags();
    if (!flags) return llvm::toString(flags.takeError());
    if ((*flags & llvm::object::SymbolRef::SF_Undefined) != 0) {
      return strCat("it uses '", entry, "' but does not define it");
    }
    if ((*flags & llvm::object::SymbolRef::SF_Global) == 0) {
      return strCat("'", entry, "' is a local symbol; the entry function must be global");
    }
    if (sym.getELFType() != llvm::ELF::STT_FUNC) {
      return strCat("'", entry, "' is not a function (ELF symbol type ", int(sym.getELFType()),
                    ")");
    }
    if ((sym.getOther() & 0x3) != llvm::ELF::STV_DEFAULT) {
      return strCat("'", entry, "' is not of default visibility (hidden or protected)");
    }
    return "";
  }
  return strCat("it defines no symbol '", entry, "'");
}

}  // namespace

void writeObjectKernel(const ObjectKernel& kernel, const std::string& triple,
                       const std::string& path) {
  llvm::MemoryBufferRef buffer(kernel.object, kernel.symbol);
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(buffer);
  if (!file) {
    throw Error(strCat(described(kernel), " is not an object file (",
                       llvm::toString(file.takeError()), "); expected a relocatable ELF object"));
  }
  auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(file->get());
  if (elf == nullptr || !elf->isRelocatableObject()) {
    throw Error(strCat(described(kernel), " is a ", (*file)->getFileFormatName().str(),
                       elf == nullptr ? " file" : " file that is not relocatable",
                       "; expected a relocatable ELF object (as cc -c makes)"));
  }
  llvm::Triple target(triple);
  if (elf->getArch() != target.getArch()) {
    throw Error(strCat(described(kernel), " is for ",
                       llvm::Triple::getArchTypeName(elf->getArch()).str(),
                       "; the model is compiled for ", triple));
  }
  std::string problem = entryProblem(*elf, kernel.entry);
  if (!problem.empty()) throw Error(strCat(described(kernel), " cannot be linked: ", problem));

  llvm::objcopy::CommonConfig config;
  config.SymbolsToRename[kernel.entry] = kernel.symbol;
  llvm::Error added = config.SymbolsToKeepGlobal.addMatcher(llvm::objcopy::NameOrPattern::create(
      kernel.entry, llvm::objcopy::MatchStyle::Literal, [](llvm::Error e) { return e; }));
  if (added) throw InternalError(llvm::toString(std::move(added)));
  llvm::objcopy::ELFConfig elfConfig;
  std::string out;
  llvm::raw_string_ostream stream(out);
  llvm::Error copied = llvm::objcopy::elf::executeObjcopyOnBinary(config, elfConfig, *elf, stream);
  if (copied) {
    throw Error(strCat(described(kernel),
                       " cannot be rewritten for linking: ", llvm::toString(std::move(copied))));
  }
  stream.flush();
  writeFileAtomic(path, out);
}

}  // namespace kiln::codegen
