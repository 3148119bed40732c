// fuse-ops: labels nodes with fused group ids in the three forms kernel lowering accepts (see
// passes.h), so epilogues and elementwise chains run inside one kernel.
#include <algorithm>
#include <map>

#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::OpClass;
using ir::Value;

OpClass classOf(const Node& node) {
  const ir::OpDef* def = ir::findOp(node.op);
  return def ? def->opClass : OpClass::kOpaque;
}

bool isElementwise(const Node& node) {
  OpClass c = classOf(node);
  return (c == OpClass::kElementwise || c == OpClass::kBroadcast) && node.outputs.size() == 1;
}

bool isAnchor(const Node& node) {
  OpClass c = classOf(node);
  return (c == OpClass::kComplex || c == OpClass::kReduction) && node.outputs.size() == 1;
}

class Fuser {
 public:
  explicit Fuser(ir::Graph& graph) : graph_(graph) {}

  void run() {
    for (Node* node : graph_.nodes()) node->group = -1;
    for (Node* node : graph_.nodes()) {
      if (node->group < 0 && isAnchor(*node)) growAnchorChain(node);
    }
    const auto& nodes = graph_.nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      if ((*it)->group < 0 && isElementwise(**it)) growElementwiseDag(*it);
    }
    for (Node* node : graph_.nodes()) {
      if (node->group < 0) node->group = nextGroup_++;
    }
    renumberInNodeOrder();
  }

 private:
  // The only user of V when V may continue a group: used once, by one node, not a graph output.
  Node* soleUser(const Value* v) const {
    if (graph_.isGraphOutput(v)) return nullptr;
    std::vector<Node*> users = graph_.users(v);
    if (users.size() != 1) return nullptr;
    Node* user = users[0];
    if (std::count(user->inputs.begin(), user->inputs.end(), v) != 1) return nullptr;
    return user;
  }

  // Form (a): the anchor, then elementwise ops each consuming the previous output and keeping the
  // anchor's output shape. Their other inputs come from outside, which cannot form a cycle since
  // every intermediate has a single user inside the chain.
  void growAnchorChain(Node* anchor) {
    int id = nextGroup_++;
    anchor->group = id;
    const Value* cur = anchor->outputs[0];
    const ir::Shape& shape = cur->type.shape;
    while (Node* next = soleUser(cur)) {
      if (next->group >= 0 || !isElementwise(*next) || next->outputs[0]->type.shape != shape) break;
      next->group = id;
      cur = next->outputs[0];
    }
  }

  // Form (b), grown backwards from SINK: a producer joins when it is elementwise and all uses of
  // its output are already in the group, so only SINK's output leaves the group.
  void growElementwiseDag(Node* sink) {
    int id = nextGroup_++;
    sink->group = id;
    std::vector<Node*> pending = {sink};
    while (!pending.empty()) {
      Node* node = pending.back();
      pending.pop_back();
      for (Value* in : node->inputs) {
        if (in == nullptr || in->producer == nullptr) continue;
        Node* producer = in->producer;
        if (producer->group >= 0 || !isElementwise(*producer) || !usedOnlyBy(in, id)) continue;
        producer->group = id;
        pending.push_back(producer);
      }
    }
  }

  // Ids in order of each group's first node, so printed graphs read naturally.
  void renumberInNodeOrder() {
    std::map<int, int> renamed;
    for (Node* node : graph_.nodes()) {
      auto [it, fresh] = renamed.emplace(node->group, static_cast<int>(renamed.size()));
      node->group = it->second;
    }
  }

  bool usedOnlyBy(const Value* v, int group) const {
    if (graph_.isGraphOutput(v)) return false;
    for (const Node* user : graph_.users(v)) {
      if (user->group != group) return false;
    }
    return true;
  }

  ir::Graph& graph_;
  int nextGroup_ = 0;
};

}  // namespace

void fuseOps(ir::Graph& graph) { Fuser(graph).run(); }

}  // namespace kiln::transform
