// RNN, GRU and LSTM: the sizes X, W and the attributes give, checked against each other.
#include "kiln/opdef/recurrent.h"

namespace kiln::opdef {
namespace {

int64_t gatesOf(const OpView& op) {
  if (op.op() == "RNN") return 1;
  if (op.op() == "GRU") return 3;
  if (op.op() == "LSTM") return 4;
  fail(op, "'", op.op(), "' is not a recurrent op; expected RNN, GRU or LSTM");
}

}  // namespace

RecurrentGeometry recurrentGeometry(const OpView& op) {
  RecurrentGeometry g;
  g.gates = gatesOf(op);
  Dims x = op.inputShape(0), w = op.inputShape(1);
  if (x.size() != 3 || w.size() != 3) {
    fail(op, "X ", op.inputTypeStr(0), " and W ", op.inputTypeStr(1), "; expected rank 3 for both");
  }
  g.batchMajor = op.attrInt("layout", 0) != 0;
  g.seq = g.batchMajor ? x[1] : x[0];
  g.batch = g.batchMajor ? x[0] : x[1];
  g.inputSize = x[2];
  g.dirs = w[0];
  g.direction = op.attrString("direction", "forward");
  if (g.direction != "forward" && g.direction != "reverse" && g.direction != "bidirectional") {
    fail(op, "direction '", g.direction, "'; expected forward, reverse or bidirectional");
  }
  int64_t wantDirs = g.direction == "bidirectional" ? 2 : 1;
  g.hidden = op.attrInt("hidden_size", w[1] == kUnknownDim ? kUnknownDim : w[1] / g.gates);
  if (op.hasAttr("hidden_size") && g.hidden < 1) {
    fail(op, "hidden_size is ", g.hidden, "; expected >= 1");
  }
  if (knownAndDiffer(g.dirs, wantDirs) ||
      (g.hidden != kUnknownDim && knownAndDiffer(w[1], g.gates * g.hidden)) ||
      knownAndDiffer(w[2], g.inputSize)) {
    fail(op, "W ", op.inputTypeStr(1), " does not match direction '", g.direction,
         "', hidden_size ", g.hidden, " and X ", op.inputTypeStr(0), "; expected [", wantDirs, ",",
         g.hidden == kUnknownDim ? std::string("?") : std::to_string(g.gates * g.hidden), ",",
         g.inputSize == kUnknownDim ? std::string("?") : std::to_string(g.inputSize), "]");
  }
  g.dirs = wantDirs;
  g.y = g.batchMajor ? Dims{g.batch, g.seq, g.dirs, g.hidden}
                     : Dims{g.seq, g.dirs, g.batch, g.hidden};
  g.state = g.batchMajor ? Dims{g.batch, g.dirs, g.hidden} : Dims{g.dirs, g.batch, g.hidden};
  return g;
}

}  // namespace kiln::opdef
