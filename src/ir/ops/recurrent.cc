// Type inference of the recurrent layers the runtime executes: RNN, GRU and LSTM. Outputs Y
// [seq, dirs, batch, hidden] and Y_h (LSTM also Y_c) [dirs, batch, hidden], or, with layout=1,
// [batch, seq, dirs, hidden] and [batch, dirs, hidden].
#include "kiln/opdef/recurrent.h"

#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

// The sizes are src/opdef's rule, which the runtime's RNN, GRU and LSTM follow too.
void inferRecurrent(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  inputType(node, 1, "W");
  inputType(node, 2, "R");
  requireFloat(node, 0);
  requireSameDtype(node, 0, 1);
  requireSameDtype(node, 0, 2);
  opdef::RecurrentGeometry g = opdef::recurrentGeometry(NodeView(node));
  setOutput(node, 0, {x.dtype, g.y});
  for (size_t i = 1; i < node.outputs.size(); ++i) setOutput(node, i, {x.dtype, g.state});
}

}  // namespace

void registerRecurrentOps(const OpAdder& add) {
  add({.name = "RNN",
       .minInputs = 3,
       .maxInputs = 6,
       .numOutputs = 2,
       .sinceVersion = 7,
       .inferTypes = inferRecurrent});
  add({.name = "GRU",
       .minInputs = 3,
       .maxInputs = 6,
       .numOutputs = 2,
       .sinceVersion = 7,
       .inferTypes = inferRecurrent});
  add({.name = "LSTM",
       .minInputs = 3,
       .maxInputs = 8,
       .numOutputs = 3,
       .sinceVersion = 7,
       .inferTypes = inferRecurrent});
}

}  // namespace kiln::ir::ops
