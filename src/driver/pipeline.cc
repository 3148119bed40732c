// The ordered pass list: the one place that says which graph passes run at which opt level.
#include "kiln/driver/pipeline.h"

#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::driver {

std::vector<ir::Pass> buildPipeline(int optLevel, int64_t lanes) {
  if (optLevel < 0 || optLevel > 3) {
    throw Error(strCat("--opt-level ", optLevel, " is out of range; expected 0, 1, 2 or 3"));
  }
  std::vector<std::string> names;
  if (optLevel >= 1) names = {"fold-constants", "simplify"};
  if (optLevel >= 2) {
    names.insert(names.end(),
                 {"fold-batch-norm", "fuse-layer-norm", "convert-layout", "pack-matmul"});
  }
  if (optLevel >= 3) names.insert(names.end(), {"fuse-ops", "concat-in-place"});
  std::vector<ir::Pass> passes;
  passes.reserve(names.size());
  for (const std::string& name : names) passes.push_back(transform::findPass(name, lanes));
  return passes;
}

}  // namespace kiln::driver
