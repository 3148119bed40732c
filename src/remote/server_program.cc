// The server program's location and its first line.
#include "server_program.h"

#include <cstdlib>
#include <filesystem>

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

std::string findRuntimeLibrary(const std::string& serverPath) {
  std::filesystem::path dir = std::filesystem::path(serverPath).parent_path();
  std::string tried;
  for (const char* rel :
       {"libkiln_runtime.so", "../lib/libkiln_runtime.so", "../src/runtime/libkiln_runtime.so"}) {
    std::filesystem::path p = (dir / rel).lexically_normal();
    std::error_code ec;
    if (std::filesystem::exists(p, ec)) return p.string();
    tried += (tried.empty() ? "" : ", ") + p.string();
  }
  throw Error(strCat("the runtime library of '", serverPath, "' is not in ", tried));
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
