// When Dropout computes nothing: the one rule its type inference, its run-time form and the
// simplify pass share.
#pragma once

#include "kiln/ir/graph.h"

namespace kiln::ir {

enum class DropoutForm {
  kIdentity,  // inference mode, or training mode with a constant ratio of 0: Y = X, mask all true
  kRunTime,   // training_mode or ratio is known only at run time: the runtime checks them
  kRefused,   // training mode with a nonzero ratio: random masks, which kiln does not compute
};

// NODE's form from its training_mode (input 2, default false) and ratio (input 1, default 0.5).
DropoutForm dropoutForm(const Node& node);

}  // namespace kiln::ir
