// Inserts copies so that every graph output is written by a kernel into its own buffer.
#include "kiln/driver/materialize_outputs.h"

#include <set>

#include "kiln/ir/op_registry.h"

namespace kiln::driver {

void materializeOutputs(ir::Graph& graph) {
  std::set<const ir::Value*> seen;
  for (ir::Value*& out : graph.outputs()) {
    bool computed = out->producer != nullptr;
    if (computed && seen.insert(out).second) continue;
    std::string name = graph.uniqueName(out->name + "_copy");
    ir::Node* copy = graph.addNode("Identity", name, {out}, {name});
    ir::inferTypes(*copy);
    out = copy->outputs[0];
    seen.insert(out);
  }
}

}  // namespace kiln::driver
