// The host's C compiler driver knows where libc and libm live, so it links native libraries;
// foreign triples need a cross toolchain or LLD, which links a shared object without any sysroot.
#include "link_shared_library.h"

#include <llvm/TargetParser/Triple.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "kiln/support/error.h"
#include "llvm_targets.h"
#include "run_process.h"

namespace kiln::codegen {
namespace {

// The command that links OBJECT into OUT for TRIPLE, or empty when no suitable tool is installed.
std::vector<std::string> linkCommand(const std::string& triple, const std::string& object,
                                     const std::string& out) {
  if (isHostTriple(triple)) {
    if (findProgram("cc").empty()) return {};
    return {"cc", "-shared", "-o", out, object, "-lm"};
  }
  llvm::Triple t(triple);
  // Debian's cross compilers are named after the vendor-less triple: aarch64-linux-gnu-gcc.
  std::string crossGcc = strCat(t.getArchName().str(), "-", t.getOSName().str(), "-",
                                t.getEnvironmentName().str(), "-gcc");
  if (!findProgram(crossGcc).empty()) return {crossGcc, "-shared", "-o", out, object, "-lm"};
  for (const char* lld : {"ld.lld-19", "ld.lld"}) {
    if (!findProgram(lld).empty()) return {lld, "-shared", "-z", "noexecstack", "-o", out, object};
  }
  return {};
}

std::string temporaryOutput(const std::string& outputPath) {
  static std::atomic<int> counter{0};
  return strCat(outputPath, ".tmp.", getpid(), ".", counter++);
}

}  // namespace

void linkSharedLibrary(const std::string& objectPath, const std::string& triple,
                       const std::string& outputPath, const std::string& logPath) {
  std::string tmp = temporaryOutput(outputPath);
  std::vector<std::string> command = linkCommand(triple, objectPath, tmp);
  if (command.empty()) {
    throw Error(
        strCat("no linker for target triple '", triple, "': ",
               isHostTriple(triple)
                   ? "expected the C compiler driver 'cc' in PATH (Debian package 'gcc')"
                   : "expected ld.lld-19 (Debian package 'lld-19') or a cross compiler such as "
                     "aarch64-linux-gnu-gcc (Debian package 'gcc-aarch64-linux-gnu') in PATH"));
  }
  ProcessResult result = runProcess(command, logPath);
  std::error_code ignored;
  if (result.exitCode != 0) {
    std::filesystem::remove(tmp, ignored);
    throw Error(strCat("linking shared library '", outputPath, "' with ", command[0],
                       " failed (exit code ", result.exitCode, "): ", result.output));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, outputPath, ec);
  if (ec) {
    std::filesystem::remove(tmp, ignored);
    throw Error(strCat("cannot move the linked library to '", outputPath, "': ", ec.message()));
  }
}

}  // namespace kiln::codegen
