// The backend runtimes a loaded library's offloaded partitions run on: found on demand in the
// extension libraries along a search path, each library opened once per loaded library.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/offload_api.h"
#include "kiln/runtime/shared_library.h"

namespace kiln::runtime {

// One partition, made ready by its backend's runtime; destroyed with its last kernel.
class OffloadPartition {
 public:
  OffloadPartition(std::string backend, const KilnBackendRuntime* runtime, void* state,
                   std::shared_ptr<SharedLibrary> library);
  ~OffloadPartition();
  OffloadPartition(const OffloadPartition&) = delete;
  OffloadPartition& operator=(const OffloadPartition&) = delete;

  int32_t run(void* const* args) const { return runtime_->run(state_, args); }
  const std::string& backend() const { return backend_; }

 private:
  std::string backend_;
  const KilnBackendRuntime* runtime_;
  void* state_;
  std::shared_ptr<SharedLibrary> library_;  // keeps the runtime's code mapped
};

class OffloadRuntimes {
 public:
  // PATHS: extension files or folders of them (every *.so, in name order), searched in order.
  explicit OffloadRuntimes(std::vector<std::string> paths) : paths_(std::move(paths)) {}

  // A partition of BACKEND made from PAYLOAD. Throws kiln::Error naming the backend, the paths
  // searched and why each candidate did not serve, when no library runs BACKEND, or with the
  // runtime's own message when it refuses the payload.
  std::shared_ptr<const OffloadPartition> create(const std::string& backend,
                                                 const std::string& payload);

 private:
  struct Found {
    const KilnBackendRuntime* runtime = nullptr;
    std::shared_ptr<SharedLibrary> library;
  };
  std::vector<std::string> paths_;
  std::map<std::string, Found> found_;
  std::map<std::string, std::shared_ptr<SharedLibrary>> opened_;  // by file

  Found find(const std::string& backend);
};

// The search path of LoadOptions::extensions, then every entry of KILN_EXTENSION_PATH.
std::vector<std::string> offloadSearchPath(const std::vector<std::string>& extensions);

}  // namespace kiln::runtime
