// fuse-ops: labels nodes with fused group ids in the three forms kernel lowering accepts (see
// passes.h), so epilogues and elementwise chains run inside one kernel.
#include <algorithm>
#include <map>
#include <set>

#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::OpClass;
using ir::Value;

OpClass classOf(const Node& node) {
  if (ir::computesSizesOnly(node)) return OpClass::kOpaque;  // written from the symbols alone
  if (ir::runsInRuntime(node)) return OpClass::kOpaque;      // the runtime executes it alone
  const ir::OpDef* def = ir::opsOf(node).find(node.op);
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

// How far past an anchor (in topological order) its epilogue may reach.
constexpr size_t kAnchorWindow = 64;

class Fuser {
 public:
  explicit Fuser(ir::Graph& graph) : graph_(graph) {}

  void run() {
    for (Node* node : graph_.nodes()) node->group = -1;
    const auto& nodes = graph_.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i]->group < 0 && isAnchor(*nodes[i])) growAnchorGroup(nodes[i], i);
    }
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      if ((*it)->group < 0 && isElementwise(**it)) growElementwiseDag(*it);
    }
    for (Node* node : graph_.nodes()) {
      if (node->group < 0) node->group = nextGroup_++;
    }
    renumberInNodeOrder();
  }

 private:
  // Form (a): the anchor, then elementwise ops of the anchor's output shape that read group
  // values (a chain, or a DAG such as GELU's x * (erf(x / c) + 1) / 2). Nodes join in
  // topological order; the group is then cut back to the longest prefix whose values are used
  // only inside it, but for the last one. No node outside then depends on a value inside, so the
  // group's other inputs cannot depend on it either: the grouping stays acyclic.
  void growAnchorGroup(Node* anchor, size_t position) {
    int id = nextGroup_++;
    anchor->group = id;
    const ir::Shape& shape = anchor->outputs[0]->type.shape;
    std::set<const Value*> inside = {anchor->outputs[0]};
    std::vector<Node*> members = {anchor};
    const auto& nodes = graph_.nodes();
    for (size_t i = position + 1; i < nodes.size() && i <= position + kAnchorWindow; ++i) {
      Node* n = nodes[i];
      if (n->group >= 0 || !isElementwise(*n) || n->outputs[0]->type.shape != shape) continue;
      bool readsInside = std::any_of(n->inputs.begin(), n->inputs.end(),
                                     [&](const Value* v) { return inside.count(v) != 0; });
      if (!readsInside) continue;
      n->group = id;
      inside.insert(n->outputs[0]);
      members.push_back(n);
    }
    size_t keep = members.size();
    while (keep > 1 && !onlySinkLeaves(members, keep, id)) members[--keep]->group = -1;
  }

  // Whether, of the first KEEP members, only the last one's output is used outside them. The
  // kept members are exactly the nodes labelled ID (those past KEEP were unlabelled).
  bool onlySinkLeaves(const std::vector<Node*>& members, size_t keep, int id) const {
    for (size_t k = 0; k + 1 < keep; ++k) {
      const Value* v = members[k]->outputs[0];
      if (graph_.isGraphOutput(v)) return false;
      for (const Node* user : graph_.users(v)) {
        if (user->group != id) return false;
      }
    }
    return true;
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
