// The table of executor kinds the compiler can generate.
#include "kiln/driver/executor_codegen.h"

#include "kiln/driver/aot_codegen.h"
#include "kiln/driver/graph_metadata.h"
#include "kiln/support/error.h"

namespace kiln::driver {

const std::vector<ExecutorCodegenKind>& executorCodegens() {
  static const std::vector<ExecutorCodegenKind> kKinds = {
      {"graph", generateGraphExecutor},
      {"aot", generateAotExecutor},
  };
  return kKinds;
}

ExecutorCodegen findExecutorCodegen(const std::string& name) {
  std::string known;
  for (const ExecutorCodegenKind& kind : executorCodegens()) {
    if (name == kind.name) return kind.generate;
    known += strCat(known.empty() ? "" : ", ", kind.name);
  }
  throw Error(strCat("--executor '", name, "' is not known; expected one of: ", known));
}

}  // namespace kiln::driver
