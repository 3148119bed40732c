// Runs the pipeline's passes in order with verification and optional IR dumps in between, so
// every pass gets the same checks and `--dump-ir` shows the graph after each one.
#include <cstdio>

#include "kiln/ir/pass.h"
#include "kiln/ir/printer.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"

namespace kiln::ir {

namespace {

void dump(const Graph& graph, const std::string& dir, size_t index, const std::string& name) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "%02zu-", index);
  std::string file = prefix + name + ".ir";
  for (char& c : file) {
    if (c == '/' || c == '\\') c = '_';
  }
  writeFileAtomic(dir + "/" + file, printGraph(graph));
}

void verifyAfter(const Graph& graph, const std::string& stage) {
  try {
    verifyGraph(graph);
  } catch (const InternalError& e) {
    throw InternalError(strCat(stage, ": ", e.what()));
  }
}

}  // namespace

void runPasses(Graph& graph, const std::vector<Pass>& passes, const std::string& dumpDir) {
  if (!dumpDir.empty()) {
    makeDirectories(dumpDir);
    dump(graph, dumpDir, 0, "input");
  }
  verifyAfter(graph, "the input graph (before any pass)");
  for (size_t i = 0; i < passes.size(); ++i) {
    const Pass& pass = passes[i];
    KILN_CHECK(pass.run, "pass '", pass.name, "' has no function");
    pass.run(graph);
    if (!dumpDir.empty()) dump(graph, dumpDir, i + 1, pass.name);
    verifyAfter(graph, strCat("after pass '", pass.name, "'"));
  }
}

}  // namespace kiln::ir
