// The ordered pass list: the one place that says which graph passes run at which opt level.
#include "kiln/driver/pipeline.h"

#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::driver {

std::vector<ir::Pass> buildPipeline(int optLevel) {
  if (optLevel < 0 || optLevel > 3) {
    throw Error(strCat("--opt-level ", optLevel, " is out of range; expected 0, 1, 2 or 3"));
  }
  std::vector<const char*> names;
  if (optLevel >= 1) names = {"fold-constants", "simplify"};
  if (optLevel >= 2) names.push_back("fold-batch-norm");
  if (optLevel >= 3) names.push_back("fuse-ops");
  std::vector<ir::Pass> passes;
  for (const char* name : names) passes.push_back(transform::findPass(name));
  return passes;
}

}  // namespace kiln::driver
