// Loading an optional part of the runtime from beside the core, once.
#include "companion_library.h"

#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

// The folder of the library this function is in: libkiln_runtime.so's, wherever it was loaded
// from (an installed lib/, a build tree, a session folder on a board).
std::filesystem::path coreFolder() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&coreFolder), &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  return std::filesystem::path(info.dli_fname).parent_path();
}

}  // namespace

const std::string& loadCompanionLibrary(const std::string& file) {
  static std::mutex mutex;
  static std::map<std::string, std::string> outcomes;  // file -> "" or why it did not load
  std::lock_guard<std::mutex> lock(mutex);
  auto it = outcomes.find(file);
  if (it != outcomes.end()) return it->second;
  std::filesystem::path path = coreFolder() / file;
  std::string why;
  // Kept loaded for the process's life: its registration points into it.
  if (::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE) == nullptr) {
    const char* err = ::dlerror();
    why = strCat("'", path.string(), "' did not load (", err ? err : "unknown error", ")");
  }
  return outcomes.emplace(file, why).first->second;
}

}  // namespace kiln::runtime
