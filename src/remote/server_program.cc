// The server program's location and its first line.
#include "server_program.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "kiln/support/error.h"

namespace kiln::remote {

std::string findServer(const std::string& programDir, const std::string& relative, const char* env,
                       const std::string& name) {
  std::error_code ec;
  std::filesystem::path dir = programDir;
  if (dir.empty()) dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  if (!ec) {
    std::filesystem::path beside = dir / relative;
    if (std::filesystem::exists(beside, ec)) return beside.lexically_normal().string();
  }
  if (const char* v = std::getenv(env); v != nullptr && *v != '\0') return v;
  return name;
}

std::vector<std::string> findRuntimeLibraries(const std::string& serverPath) {
  std::filesystem::path dir = std::filesystem::path(serverPath).parent_path();
  std::string tried;
  for (const char* rel : {".", "../lib"}) {
    std::filesystem::path folder = (dir / rel).lexically_normal();
    std::error_code ec;
    if (!std::filesystem::exists(folder / "libkiln_runtime.so", ec)) {
      tried += (tried.empty() ? "" : ", ") + folder.string();
      continue;
    }
    std::vector<std::string> found;
    for (const char* lib : {"libkiln_runtime.so", "libkiln_rpc.so", "libkiln_runtime_ops.so",
                            "libkiln_runtime_debug.so"}) {
      std::filesystem::path p = folder / lib;
      if (!std::filesystem::exists(p, ec)) {
        throw Error(strCat("the runtime library ", p.string(), " of '", serverPath,
                           "' is missing; the runtime's parts are installed together"));
      }
      found.push_back(p.string());
    }
    return found;
  }
  throw Error(strCat("the runtime libraries of '", serverPath, "' are not in ", tried));
}

int portOf(const std::string& line, const std::string& command) {
  const std::string prefix = "kiln rpc server listening on ";
  size_t colon = line.rfind(':');
  if (line.rfind(prefix, 0) != 0 || colon == std::string::npos) {
    throw Error(strCat("'", command, "' printed '", line, "'; expected '", prefix, "HOST:PORT'"));
  }
  return std::stoi(line.substr(colon + 1));
}

}  // namespace kiln::remote
