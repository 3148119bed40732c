// Einsum's equation: each input's labels, each label's size (broadcasting dims of size 1) and the
// output's labels, explicit after "->" or implicit (the "..." dims, then the labels that occur
// once, in alphabetical order).
#pragma once

#include <map>
#include <vector>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

struct EinsumSpec {
  // Letters are their character codes; the dims under "..." are -1, -2, ... counted from the
  // right, so inputs with fewer broadcast dims align on the right.
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  std::map<int, int64_t> size;  // every label's size; kUnknownDim when known only at run time
  Dims outputShape() const;
};

EinsumSpec parseEinsum(const OpView& op);

}  // namespace kiln::opdef
