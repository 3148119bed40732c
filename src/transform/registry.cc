// The name -> pass table the driver's pipeline and the golden tests look passes up in.
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {

std::vector<ir::Pass> allPasses(int64_t lanes) {
  return {
      {"fold-constants", foldConstants},
      {"simplify", simplify},
      {"fold-batch-norm", foldBatchNorm},
      {"fuse-layer-norm", fuseLayerNorm},
      {"fuse-attention", fuseAttention},
      {"decompose-conv", decomposeConv},
      {"convert-layout", [lanes](ir::Graph& g) { convertLayout(g, lanes); }},
      {"pack-matmul", [lanes](ir::Graph& g) { packMatmul(g, lanes); }},
      {"cache-in-place", cacheInPlace},
      {"fuse-ops", fuseOps},
      {"concat-in-place", concatInPlace},
  };
}

ir::Pass findPass(const std::string& name, int64_t lanes) {
  std::string known;
  for (ir::Pass& pass : allPasses(lanes)) {
    if (pass.name == name) return pass;
    known += (known.empty() ? "" : ", ") + pass.name;
  }
  throw Error(strCat("unknown pass '", name, "'; known passes: ", known));
}

}  // namespace kiln::transform
