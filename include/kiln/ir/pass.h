// Graph passes and the one place that runs them in order, verifying and dumping between passes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/ir/verifier.h"

namespace kiln::ir {

struct Pass {
  std::string name;  // kebab-case: "fold-constants"
  std::function<void(Graph&)> run;
};

// Verifies GRAPH, then runs PASSES in order, verifying after each (kiln::InternalError naming the
// pass when verification fails). With DUMP_DIR non-empty, creates it and writes the printed graph
// to 00-input.ir, then 01-<pass-name>.ir, ... after each pass (written before verifying, so a
// broken graph can be inspected).
void runPasses(Graph& graph, const std::vector<Pass>& passes, const std::string& dumpDir);

}  // namespace kiln::ir
