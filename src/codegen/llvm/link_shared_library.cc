// The host's C compiler driver knows where libc and libm live, so it links native libraries;
// foreign triples need a cross toolchain or LLD, which links a shared object without any sysroot.
// With a C compiler driver the link uses -z defs: a symbol nothing defines (a runtime helper the
// C library lacks) fails the compile instead of the load.
#include "link_shared_library.h"

#include <llvm/TargetParser/Triple.h>

#include <filesystem>
#include <vector>

#include "kiln/runtime/artifact_file.h"
#include "kiln/support/error.h"
#include "kiln/support/temp_path.h"
#include "llvm_targets.h"
#include "run_process.h"

namespace kiln::codegen {
namespace {

std::vector<std::string> concat(std::vector<std::string> head,
                                const std::vector<std::string>& objects,
                                std::vector<std::string> tail) {
  head.insert(head.end(), objects.begin(), objects.end());
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// The command that links OBJECTS into OUT for TRIPLE, or empty when no suitable tool is installed.
std::vector<std::string> linkCommand(const std::string& triple,
                                     const std::vector<std::string>& objects,
                                     const std::string& out) {
  if (isHostTriple(triple)) {
    if (findProgram("cc").empty()) return {};
    return concat({"cc", "-shared", "-Wl,-z,defs", "-o", out}, objects, {"-lm"});
  }
  llvm::Triple t(triple);
  // Debian's cross compilers are named after the vendor-less triple: aarch64-linux-gnu-gcc.
  std::string crossGcc = strCat(t.getArchName().str(), "-", t.getOSName().str(), "-",
                                t.getEnvironmentName().str(), "-gcc");
  if (!findProgram(crossGcc).empty())
    return concat({crossGcc, "-shared", "-Wl,-z,defs", "-o", out}, objects, {"-lm"});
  for (const char* lld : {"ld.lld-19", "ld.lld"}) {
    if (!findProgram(lld).empty()) {
      return concat({lld, "-shared", "-z", "noexecstack", "-o", out}, objects, {});
    }
  }
  return {};
}

}  // namespace

void linkSharedLibrary(const std::vector<std::string>& objectPaths, const std::string& triple,
                       const std::string& outputPath, const std::string& logPath) {
  // The linker writes beside the output (a rename across file systems would fail) under a name
  // no other compile uses; a failure or a signal removes it.
  TempPath tmp = TempPath::besideFile(outputPath);
  std::vector<std::string> command = linkCommand(triple, objectPaths, tmp.path());
  if (command.empty()) {
    throw Error(
        strCat("no linker for target triple '", triple, "': ",
               isHostTriple(triple)
                   ? "expected the C compiler driver 'cc' in PATH (Debian package 'gcc')"
                   : "expected ld.lld-19 (Debian package 'lld-19') or a cross compiler such as "
                     "aarch64-linux-gnu-gcc (Debian package 'gcc-aarch64-linux-gnu') in PATH"));
  }
  ProcessResult result = runProcess(command, logPath);
  if (result.exitCode != 0) {
    throw Error(strCat("linking shared library '", outputPath, "' with ", command[0],
                       " failed (exit code ", result.exitCode, "): ", result.output));
  }
  runtime::sealArtifactFile(tmp.path());
  std::error_code ec;
  std::filesystem::rename(tmp.path(), outputPath, ec);
  if (ec)
    throw Error(strCat("cannot move the linked library to '", outputPath, "': ", ec.message()));
  tmp.keep();
}

}  // namespace kiln::codegen
