// llvm-ar indexes the symbols of objects for any architecture; GNU ar only for those its binutils
// were built for, so it is the fallback.
#include "archive_objects.h"

#include <filesystem>

#include "kiln/support/error.h"
#include "kiln/support/temp_path.h"
#include "run_process.h"

namespace kiln::codegen {

void archiveObjects(const std::vector<std::string>& objects, const std::string& outputPath,
                    const std::string& logPath) {
  std::string tool;
  for (const char* candidate : {"llvm-ar-19", "llvm-ar", "ar"}) {
    if (!findProgram(candidate).empty()) {
      tool = candidate;
      break;
    }
  }
  if (tool.empty()) {
    throw Error(strCat("cannot write the static library '", outputPath,
                       "': expected llvm-ar-19 (Debian package 'llvm-19') or ar (package "
                       "'binutils') in PATH"));
  }
  TempPath tmp = TempPath::besideFile(outputPath);
  std::vector<std::string> command = {tool, "rcs", tmp.path()};
  command.insert(command.end(), objects.begin(), objects.end());
  ProcessResult result = runProcess(command, logPath);
  if (result.exitCode != 0) {
    throw Error(strCat("archiving the static library '", outputPath, "' with ", tool,
                       " failed (exit code ", result.exitCode, "): ", result.output));
  }
  std::error_code ec;
  std::filesystem::rename(tmp.path(), outputPath, ec);
  if (ec) {
    throw Error(strCat("cannot move the static library to '", outputPath, "': ", ec.message()));
  }
  tmp.keep();
}

}  // namespace kiln::codegen
