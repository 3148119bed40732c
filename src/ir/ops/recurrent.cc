// Type inference of the recurrent layers the runtime executes: RNN, GRU and LSTM. Outputs Y
// [seq, dirs, batch, hidden] and Y_h (LSTM also Y_c) [dirs, batch, hidden], or, with layout=1,
// [batch, seq, dirs, hidden] and [batch, dirs, hidden].
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

void inferRecurrent(Node& node, int64_t gates) {
  const TensorType& x = inputType(node, 0, "X");
  const TensorType& w = inputType(node, 1, "W");
  inputType(node, 2, "R");
  requireFloat(node, 0);
  requireSameDtype(node, 0, 1);
  requireSameDtype(node, 0, 2);
  if (x.rank() != 3 || w.rank() != 3) {
    fail(node, "X ", x.str(), " and W ", w.str(), "; expected rank 3 for both");
  }
  bool batchMajor = node.attrs.getInt("layout", 0) != 0;
  int64_t seq = batchMajor ? x.shape[1] : x.shape[0];
  int64_t batch = batchMajor ? x.shape[0] : x.shape[1];
  int64_t dirs = w.shape[0];
  int64_t hidden = node.attrs.getInt("hidden_size", w.shape[1] / gates);
  std::string direction = node.attrs.getString("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    fail(node, "direction '", direction, "'; expected forward, reverse or bidirectional");
  }
  if ((direction == "bidirectional") != (dirs == 2) || w.shape[1] != gates * hidden ||
      w.shape[2] != x.shape[2]) {
    fail(node, "W ", w.str(), " does not match direction '", direction, "', hidden_size ", hidden,
         " and X ", x.str(), "; expected [", direction == "bidirectional" ? 2 : 1, ",",
         gates * hidden, ",", x.shape[2], "]");
  }
  Shape y = batchMajor ? Shape{batch, seq, dirs, hidden} : Shape{seq, dirs, batch, hidden};
  Shape state = batchMajor ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
  setOutput(node, 0, {x.dtype, y});
  for (size_t i = 1; i < node.outputs.size(); ++i) setOutput(node, i, {x.dtype, state});
}

}  // namespace

void registerRecurrentOps(const OpAdder& add) {
  add({.name = "RNN",
       .minInputs = 3,
       .maxInputs = 6,
       .numOutputs = 2,
       .sinceVersion = 7,
       .inferTypes = [](Node& n) { inferRecurrent(n, 1); }});
  add({.name = "GRU",
       .minInputs = 3,
       .maxInputs = 6,
       .numOutputs = 2,
       .sinceVersion = 7,
       .inferTypes = [](Node& n) { inferRecurrent(n, 3); }});
  add({.name = "LSTM",
       .minInputs = 3,
       .maxInputs = 8,
       .numOutputs = 3,
       .sinceVersion = 7,
       .inferTypes = [](Node& n) { inferRecurrent(n, 4); }});
}

}  // namespace kiln::ir::ops
