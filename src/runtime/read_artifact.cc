// Finding and checking the artifact container inside a loaded library, for the loader and for
// tools that only look (kiln inspect).
#include <dlfcn.h>
#include <link.h>

#include "elf_layout.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/backend_api.h"
#include "kiln/runtime/shared_library.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/support/mapped_file.h"

namespace kiln::runtime {
namespace {

// A wrong __kiln_artifact_size would make the parser read past the symbol; the ELF symbol table
// knows the array's real size, so check against it when the loader can tell.
void checkSymbolHolds(const void* data, uint64_t declared, const std::string& path) {
  Dl_info info;
  void* extra = nullptr;
  if (!::dladdr1(data, &info, &extra, RTLD_DL_SYMENT) || !extra) return;
  const auto* symbol = static_cast<const ElfW(Sym)*>(extra);
  if (symbol->st_size == 0) return;
  if (declared > symbol->st_size) {
    throw Error(strCat("artifact '", path, "' is malformed: ", KILN_SYMBOL_ARTIFACT_SIZE, " says ",
                       declared, " bytes but ", KILN_SYMBOL_ARTIFACT, " holds ", symbol->st_size));
  }
}

}  // namespace

Artifact readArtifact(const SharedLibrary& library) {
  const std::string& path = library.path();
  const void* data = library.findSymbol(KILN_SYMBOL_ARTIFACT);
  const void* size = library.findSymbol(KILN_SYMBOL_ARTIFACT_SIZE);
  if (!data || !size) {
    throw Error(strCat("'", path, "' is not a kiln artifact: it does not define the symbols ",
                       KILN_SYMBOL_ARTIFACT, " and ", KILN_SYMBOL_ARTIFACT_SIZE));
  }
  uint64_t declared = *static_cast<const uint64_t*>(size);
  checkSymbolHolds(data, declared, path);
  return parseArtifact(data, declared, path);
}

ArtifactFile readArtifactFile(const std::string& path) {
  if (!fileExists(path)) throw Error(strCat("artifact '", path, "' does not exist"));
  auto file = std::make_shared<const MappedFile>(path);
  ElfLayout layout = readElfLayout(file->data(), file->size(), path);
  for (const ElfRegion& section : layout.sections) {
    if (section.name != "kiln_artifact") continue;
    ArtifactFile out;
    out.artifact = parseArtifact(file->data() + section.offset, section.size, path);
    out.mapping = std::move(file);
    return out;
  }
  throw Error(strCat("'", path,
                     "' is not a kiln artifact: it has no 'kiln_artifact' section (the ELF section "
                     "kiln compile writes the model's metadata and weights to)"));
}

}  // namespace kiln::runtime
