// Text form of tensor types, shared by messages, the printer and the parser.
#include "kiln/ir/graph.h"
#include "kiln/support/error.h"

namespace kiln::ir {

std::string TensorType::str() const {
  std::string s = dtype.str() + "[";
  for (size_t i = 0; i < shape.size(); ++i) s += strCat(i ? "," : "", shape[i]);
  return s + "]";
}

}  // namespace kiln::ir
