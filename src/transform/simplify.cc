// simplify: drops nodes that compute nothing (Identity, Dropout where it is the identity, no-op
// reshapes and casts), so later passes and kernels never see them.
#include <algorithm>

#include "kiln/ir/dropout.h"
#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::Value;

bool unused(const ir::Graph& graph, const Node& node, size_t fromOutput) {
  for (size_t i = fromOutput; i < node.outputs.size(); ++i) {
    const Value* v = node.outputs[i];
    if (graph.isGraphOutput(v) || !graph.users(v).empty()) return false;
  }
  return true;
}

// Dropout whose mask nothing reads and which is the identity at compile time (ir/dropout.h).
bool identityDropout(const ir::Graph& graph, const Node& node) {
  return unused(graph, node, 1) && ir::dropoutForm(node) == ir::DropoutForm::kIdentity;
}

// The value NODE merely passes on, or nullptr when NODE really computes something.
Value* passThroughSource(const ir::Graph& graph, const Node& node) {
  if (node.inputs.empty() || node.inputs[0] == nullptr || node.outputs.empty()) return nullptr;
  Value* in = node.inputs[0];
  const Value* out = node.outputs[0];
  if (node.op == "Identity") return in;
  if (node.op == "Dropout") return identityDropout(graph, node) ? in : nullptr;
  static const char* const kShapeOnly[] = {"Reshape", "Flatten", "Squeeze", "Expand", "Cast"};
  bool shapeOnly = std::any_of(std::begin(kShapeOnly), std::end(kShapeOnly),
                               [&](const char* op) { return node.op == op; });
  if (shapeOnly && node.outputs.size() == 1 && out->type == in->type) return in;
  return nullptr;
}

// A graph output needs a storage of its own, so it may not become an input, a constant or a
// second copy of another output.
bool needsCopy(const ir::Graph& graph, const Value* source) {
  bool isInput =
      std::find(graph.inputs().begin(), graph.inputs().end(), source) != graph.inputs().end();
  return isInput || source->isConstant() || graph.isGraphOutput(source);
}

void removePassThrough(ir::Graph& graph, Node* node, Value* source) {
  Value* out = node->outputs[0];
  bool isOutput = graph.isGraphOutput(out);
  if (isOutput && needsCopy(graph, source)) {
    if (node->op == "Identity") return;  // already the copy the output needs
    std::string name = node->name;
    Node* copy = graph.insertNode(node, "Identity", graph.uniqueName(name), {source},
                                  {graph.uniqueName(out->name)});
    ir::inferTypes(*copy);
    graph.replaceAllUses(out, copy->outputs[0]);
    std::string outName = out->name;
    graph.removeNode(node);
    copy->name = name;
    copy->outputs[0]->name = outName;
    return;
  }
  std::string outName = out->name;
  graph.replaceAllUses(out, source);
  graph.removeNode(node);
  if (isOutput) source->name = outName;  // the model's output keeps its name
}

}  // namespace

void simplify(ir::Graph& graph) {
  std::vector<Node*> nodes = graph.nodes();
  for (Node* node : nodes) {
    if (Value* source = passThroughSource(graph, *node)) removePassThrough(graph, node, source);
  }
  graph.removeDeadCode();
}

}  // namespace kiln::transform
