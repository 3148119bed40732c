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

void replaceWithConstants(ir::Graph& graph, Node* node, std::vector<runtime::NDArray> values) {
  std::vector<std::pair<ir::Value*, std::string>> renamed;
  for (size_t i = 0; i < node->outputs.size(); ++i) {
    ir::Value* out = node->outputs[i];
    ir::Value* c = graph.addConstant(graph.uniqueName(out->name), std::move(values[i]));
    graph.replaceAllUses(out, c);
    renamed.emplace_back(c, out->name);
  }
  graph.removeNode(node);
  for (auto& [c, name] : renamed) c->name = name;  // the folded value keeps its name
}

}  // namespace

void foldConstants(ir::Graph& graph) {
  std::vector<Node*> nodes = graph.nodes();
  for (Node* node : nodes) {
    if (producesGraphOutput(graph, *node)) continue;
    if (auto values = ir::evaluateConstant(*node)) {
      replaceWithConstants(graph, node, std::move(*values));
    }
  }
  graph.removeDeadCode();
}

}  // namespace kiln::transform
