// The table of executor kinds the runtime can create factories for.
#include "executor_registry.h"

#include "kiln/runtime/aot_executor.h"
#include "kiln/runtime/graph_executor.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

const std::vector<ExecutorKind>& executorKinds() {
  static const std::vector<ExecutorKind> kKinds = {
      {"graph", makeGraphFactory},
      {"aot", makeAotFactory},
  };
  return kKinds;
}

Module makeFactory(const std::shared_ptr<SharedLibrary>& library, const ArtifactModel& model,
                   OffloadRuntimes& offloads) {
  std::string known;
  for (const ExecutorKind& kind : executorKinds()) {
    if (model.executor == kind.name) return kind.makeFactory(library, model, &offloads);
    known += strCat(known.empty() ? "" : ", ", kind.name);
  }
  throw Error(strCat("model '", model.name, "' uses the '", model.executor,
                     "' executor, which this runtime does not support (it supports: ", known, ")"));
}

}  // namespace kiln::runtime
