// Dropout's forms: training mode with ratio 0 is the identity too (PyTorch exports of vision
// transformers carry it), so only a nonzero ratio in training mode is refused.
#include "kiln/ir/dropout.h"

#include "element_access.h"
#include "kiln/runtime/dropout_rule.h"

namespace kiln::ir {

DropoutForm dropoutForm(const Node& node) {
  auto present = [&](size_t i) { return node.inputs.size() > i && node.inputs[i] != nullptr; };
  if (!present(2)) return DropoutForm::kIdentity;
  const Value* training = node.inputs[2];
  if (!training->isConstant() || training->constant->numel() != 1) return DropoutForm::kRunTime;
  bool train = loadInt(*training->constant, 0) != 0;
  double ratio = runtime::kDropoutDefaultRatio;
  if (train && present(1)) {
    const Value* r = node.inputs[1];
    if (!r->isConstant() || r->constant->numel() != 1) return DropoutForm::kRunTime;
    ratio = loadDouble(*r->constant, 0);
  }
  return runtime::dropoutIsIdentity(train, ratio) ? DropoutForm::kIdentity : DropoutForm::kRefused;
}

}  // namespace kiln::ir
