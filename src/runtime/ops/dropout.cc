// Dropout whose training_mode or ratio is known only at run time: the identity when the values
// make it one (runtime/dropout_rule.h), a clear error when they ask for random masks.
#include <cstring>

#include "kiln/runtime/dropout_rule.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runDropout(RuntimeOpContext& ctx) {
  bool training = ctx.hasInput(2) && inputScalarDouble(ctx, 2, "training_mode") != 0;
  double ratio = ctx.hasInput(1) ? inputScalarDouble(ctx, 1, "ratio") : kDropoutDefaultRatio;
  if (!dropoutIsIdentity(training, ratio)) {
    fail(ctx, "training_mode is true with ratio ", ratio,
         ": random masks, which kiln does not compute; it runs Dropout in inference mode, or in "
         "training mode with ratio 0 (the identity)");
  }
  const NDArray& x = ctx.input(0);
  NDArray y = ctx.output(0, x.shape());
  y.copyFrom(x);
  if (ctx.numOutputs() > 1 && ctx.hasOutput(1)) {
    NDArray mask = ctx.output(1, x.shape());
    std::memset(mask.data(), 1, mask.nbytes());  // every element kept
  }
}

}  // namespace kiln::runtime::ops
