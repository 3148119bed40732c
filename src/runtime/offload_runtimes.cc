// Finding a backend's runtime: every library on the search path that exports the extension
// version and kiln_backend_runtime is asked for the backend, in order, until one runs it.
#include "offload_runtimes.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "kiln/support/error.h"
#include "kiln/support/split.h"

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;

using VersionFn = uint32_t (*)();

std::vector<std::string> candidates(const std::vector<std::string>& paths,
                                    std::vector<std::string>& notes) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> inDir;
      for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
        if (e.path().extension() == ".so" && e.is_regular_file()) inDir.push_back(e.path());
      }
      std::sort(inDir.begin(), inDir.end());
      files.insert(files.end(), inDir.begin(), inDir.end());
    } else if (fs::exists(path, ec)) {
      files.push_back(path);
    } else {
      notes.push_back(strCat("'", path, "' does not exist"));
    }
  }
  return files;
}

}  // namespace

OffloadPartition::OffloadPartition(std::string backend, const KilnBackendRuntime* runtime,
                                   void* state, std::shared_ptr<SharedLibrary> library)
    : backend_(std::move(backend)),
      runtime_(runtime),
      state_(state),
      library_(std::move(library)) {}

OffloadPartition::~OffloadPartition() {
  if (runtime_->destroy != nullptr) runtime_->destroy(state_);
}

OffloadRuntimes::Found OffloadRuntimes::find(const std::string& backend) {
  if (auto it = found_.find(backend); it != found_.end()) return it->second;
  std::vector<std::string> notes;
  for (const std::string& file : candidates(paths_, notes)) {
    std::string key = fs::weakly_canonical(file).string();
    std::shared_ptr<SharedLibrary>& library = opened_[key];
    try {
      if (!library) library = std::make_shared<SharedLibrary>(key);
    } catch (const Error& e) {
      notes.push_back(e.what());
      continue;
    }
    auto version = reinterpret_cast<VersionFn>(library->findSymbol(KILN_EXTENSION_SYMBOL_VERSION));
    auto runtimeOf =
        reinterpret_cast<KilnBackendRuntimeFn>(library->findSymbol(KILN_BACKEND_RUNTIME_SYMBOL));
    if (version == nullptr || runtimeOf == nullptr) {
      notes.push_back(
          strCat("'", key, "' has no backend runtimes (no ", KILN_BACKEND_RUNTIME_SYMBOL, ")"));
      continue;
    }
    if (uint32_t v = version(); v != KILN_ABI_VERSION) {
      notes.push_back(strCat("'", key, "' is built for extension API version ", v,
                             "; this runtime loads version ", KILN_ABI_VERSION));
      continue;
    }
    const KilnBackendRuntime* runtime = runtimeOf(backend.c_str());
    if (runtime == nullptr) {
      notes.push_back(strCat("'", key, "' does not run '", backend, "'"));
      continue;
    }
    if (runtime->struct_size < sizeof(KilnBackendRuntime) || runtime->create == nullptr ||
        runtime->run == nullptr) {
      notes.push_back(strCat("'", key, "' gives an incomplete runtime for '", backend,
                             "' (struct_size ", runtime->struct_size, ", expected ",
                             sizeof(KilnBackendRuntime), ", create and run required)"));
      continue;
    }
    // A backend's runtime stays mapped until the process ends, as extensions loaded to compile
    // do: the libraries behind it (oneDNN, OpenMP runtimes) cannot be unloaded safely.
    static_cast<void>(dlopen(key.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE));
    return found_[backend] = Found{runtime, library};
  }
  std::string searched, why;
  for (const std::string& p : paths_) searched += (searched.empty() ? "" : ", ") + p;
  for (const std::string& n : notes) why += "; " + n;
  throw Error(strCat("backend '", backend,
                     "' is needed, but no extension on the search path runs it (searched: ",
                     searched.empty() ? std::string("nothing") : searched, why,
                     "). Load the extension that provides it (--extension PATH or "
                     "KILN_EXTENSION_PATH)"));
}

std::shared_ptr<const OffloadPartition> OffloadRuntimes::create(const std::string& backend,
                                                                const std::string& payload) {
  Found f = find(backend);
  char error[1024] = {};
  void* state = nullptr;
  KilnStatus status =
      f.runtime->create(payload.data(), payload.size(), &state, error, sizeof error);
  if (status != 0) {
    error[sizeof error - 1] = '\0';
    throw Error(strCat("backend '", backend, "' refused a partition (status ", status,
                       "): ", error[0] != '\0' ? error : "no message"));
  }
  return std::make_shared<const OffloadPartition>(backend, f.runtime, state, f.library);
}

std::vector<std::string> offloadSearchPath(const std::vector<std::string>& extensions) {
  std::vector<std::string> paths = extensions;
  if (const char* env = std::getenv("KILN_EXTENSION_PATH")) {
    for (std::string& entry : splitOn(env, ':')) {
      if (!entry.empty()) paths.push_back(std::move(entry));
    }
  }
  return paths;
}

}  // namespace kiln::runtime
