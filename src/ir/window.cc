// Graph nodes' windows, by src/opdef's rule.
#include "kiln/ir/window.h"

#include "kiln/ir/node_view.h"

namespace kiln::ir {

WindowGeometry resolveWindow(const Node& node, const Shape& input, const Shape& kernel) {
  return opdef::windowGeometry(NodeView(node), input, kernel);
}

}  // namespace kiln::ir
