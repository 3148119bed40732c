// loadModule: opens a compiled artifact, checks its container, connects its kernels to the
// runtime's thread pool and returns the root module that creates executors per model.
#include <map>

#include "executor_registry.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/artifact_file.h"
#include "kiln/runtime/backend_api.h"
#include "kiln/runtime/host_cpu.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/shared_library.h"
#include "kiln/runtime/thread_pool.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"

namespace kiln::runtime {

namespace {

// Generated code is C: no exception may cross back into it.
KilnStatus parallelLaunch(KilnParallelBody body, void* closure, int64_t extent) {
  try {
    return ThreadPool::global().parallelFor(
        extent, [body, closure](int64_t begin, int64_t end) { return body(begin, end, closure); });
  } catch (...) {
    return KILN_STATUS_ERROR;
  }
}

const KilnBackendApi kBackendApi = {KILN_ABI_VERSION, &parallelLaunch};

class LibraryNode final : public ModuleNode {
 public:
  LibraryNode(std::shared_ptr<SharedLibrary> library, Artifact artifact, OffloadRuntimes& offloads)
      : library_(std::move(library)),
        target_(std::move(artifact.target)),
        producer_(std::move(artifact.producer)) {
    for (const ArtifactModel& m : artifact.models) {
      try {
        factories_.emplace(m.name, makeFactory(library_, m, offloads));
      } catch (const Error& e) {
        throw Error(strCat("artifact '", library_->path(), "': ", e.what()));
      }
      order_.push_back(m.name);
    }
  }

  const char* typeKey() const override { return "library"; }

  PackedFunc getFunction(const std::string& name) override {
    auto self = std::static_pointer_cast<LibraryNode>(shared_from_this());
    if (auto it = factories_.find(name); it != factories_.end()) {
      Module factory = it->second;
      return PackedFunc([factory](const Args& a) { return factory["create"].callPacked(a); });
    }
    if (name == "list_models") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("list_models", a, 0);
        Json names = Json::Array{};
        for (const std::string& n : self->order_) names.push(Json(n));
        return Value(names);
      });
    }
    if (name == "debug_create") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("debug_create", a, 2);
        return self->factory(a[0].asString())["debug_create"].callPacked(
            Args(a.begin() + 1, a.end()));
      });
    }
    if (name == "get_factory") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("get_factory", a, 1);
        return Value(self->factory(a[0].asString()));
      });
    }
    if (name == "get_target")
      return PackedFunc([self](const Args&) { return Value(self->target_); });
    if (name == "get_producer") {
      return PackedFunc([self](const Args&) { return Value(self->producer_); });
    }
    return {};
  }

  std::vector<std::string> functionNames() const override {
    std::vector<std::string> names = order_;
    for (const char* n :
         {"list_models", "get_factory", "debug_create", "get_target", "get_producer"}) {
      names.push_back(n);
    }
    return names;
  }

 private:
  Module factory(const std::string& name) const {
    auto it = factories_.find(name);
    if (it == factories_.end()) {
      std::string models;
      for (const std::string& n : order_) models += (models.empty() ? "" : ", ") + n;
      throw Error(strCat("artifact '", library_->path(), "' has no model named '", name,
                         "' (it has: ", models.empty() ? "none" : models, ")"));
    }
    return it->second;
  }

  std::shared_ptr<SharedLibrary> library_;
  Json target_;
  std::string producer_;
  std::map<std::string, Module> factories_;
  std::vector<std::string> order_;
};

}  // namespace

Module loadModule(const std::string& path, const LoadOptions& options) {
  if (!fileExists(path)) throw Error(strCat("cannot load module '", path, "': no such file"));
  auto library = std::make_shared<SharedLibrary>(path, options.verifyChecksum);
  Artifact artifact = readArtifact(*library);
  checkTargetRunsHere(artifact.target, path);
  // Started here, not on the first run(), so run() never creates threads.
  ThreadPool::global();
  // Kernels reach the thread pool through this pointer; a library without it has no parallel code.
  library->setPointer(KILN_SYMBOL_BACKEND_API, &kBackendApi);
  OffloadRuntimes offloads(offloadSearchPath(options.extensions));
  return Module(std::make_shared<LibraryNode>(std::move(library), std::move(artifact), offloads));
}

}  // namespace kiln::runtime
