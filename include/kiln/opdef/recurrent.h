// The rules of the recurrent ops RNN, GRU and LSTM: the sizes their inputs and attributes give
// (layout, direction, hidden_size against W) and their outputs' dims.
#pragma once

#include <string>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

struct RecurrentGeometry {
  int64_t gates = 1;        // per hidden unit: RNN 1, GRU 3, LSTM 4
  bool batchMajor = false;  // layout 1: X [B, S, I], Y [B, S, D, H], states [B, D, H]
  int64_t seq = 0, batch = 0, inputSize = 0, dirs = 1, hidden = 0;
  std::string direction;  // forward, reverse or bidirectional
  Dims y, state;          // Y's dims; Y_h's and Y_c's dims
};

// X (input 0) and W (input 1) checked against the attributes; a dim known only at run time is
// checked then.
RecurrentGeometry recurrentGeometry(const OpView& op);

}  // namespace kiln::opdef
