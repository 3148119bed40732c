// fold-constants: computes at compile time what does not depend on model inputs, mostly the
// shape arithmetic exporters emit, so kernels see constant reshape targets and no shape ops.
#include "kiln/ir/constant_eval.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using ir::Node;

// Graph outputs stay computed: an executor gives each output a storage of its own.
bool producesGraphOutput(const ir::Graph& graph, const Node& node) {
  for (const ir::Value* out : node.outputs) {
    if (graph.isGraphOutput(out)) return true;
  }
  return false;
}

}  // namespace

void foldConstants(ir::Graph& graph) {
  std::vector<Node*> nodes = graph.nodes();
  ir::FoldBudget budget = ir::FoldBudget::forGraph(graph);
  for (Node* node : nodes) {
    if (producesGraphOutput(graph, *node)) continue;
    if (auto values = ir::evaluateConstant(*node, budget)) {
      ir::replaceWithConstants(graph, node, std::move(*values));
    }
  }
  graph.removeDeadCode();
}

}  // namespace kiln::transform
