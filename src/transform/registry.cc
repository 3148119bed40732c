// The name -> pass table the driver's pipeline and the golden tests look passes up in.
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {

const std::vector<ir::Pass>& allPasses() {
  static const std::vector<ir::Pass> kPasses = {
      {"fold-constants", foldConstants},
      {"simplify", simplify},
      {"fold-batch-norm", foldBatchNorm},
      {"fuse-layer-norm", fuseLayerNorm},
      {"convert-layout", [](ir::Graph& g) { convertLayout(g, 16); }},
      {"pack-matmul", [](ir::Graph& g) { packMatmul(g, 16); }},
      {"fuse-ops", fuseOps},
      {"concat-in-place", concatInPlace},
  };
  return kPasses;
}

const ir::Pass& findPass(const std::string& name) {
  std::string known;
  for (const ir::Pass& pass : allPasses()) {
    if (pass.name == name) return pass;
    known += (known.empty() ? "" : ", ") + pass.name;
  }
  throw Error(strCat("unknown pass '", name, "'; known passes: ", known));
}

}  // namespace kiln::transform
