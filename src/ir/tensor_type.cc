// Text form of tensor types, shared by messages, the printer and the parser.
#include "kiln/ir/graph.h"
#include "kiln/support/error.h"

namespace kiln::ir {

std::string TensorType::str() const { return dtype.str() + runtime::shapeStr(shape); }

}  // namespace kiln::ir
