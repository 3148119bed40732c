// Reads fused groups off the `group` annotations that fuse-ops sets: the unit kernels are
// generated for and the executor schedules.
#include "kiln/ir/fused_group.h"

#include <map>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "kiln/support/error.h"

namespace kiln::ir {

namespace {

// Groups in the order of their first node; nodes with group -1 get a group of their own.
std::vector<FusedGroup> gather(const Graph& graph, std::unordered_map<const Node*, size_t>& owner) {
  std::vector<FusedGroup> groups;
  std::map<int, size_t> byId;
  for (const Node* node : graph.nodes()) {
    size_t index;
    auto it = node->group >= 0 ? byId.find(node->group) : byId.end();
    if (it != byId.end()) {
      index = it->second;
    } else {
      index = groups.size();
      groups.emplace_back();
      if (node->group >= 0) byId[node->group] = index;
    }
    groups[index].nodes.push_back(node);
    owner[node] = index;
  }
  return groups;
}

// Stable topological order of groups (by first node), failing on a cycle between groups.
std::vector<size_t> scheduleGroups(const std::vector<FusedGroup>& groups,
                                   const std::unordered_map<const Node*, size_t>& owner) {
  std::vector<std::set<size_t>> successors(groups.size());
  std::vector<int> pending(groups.size(), 0);
  for (size_t g = 0; g < groups.size(); ++g) {
    for (const Node* node : groups[g].nodes) {
      for (const Value* in : node->inputs) {
        if (!in || !in->producer) continue;
        size_t from = owner.at(in->producer);
        if (from != g && successors[from].insert(g).second) ++pending[g];
      }
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (pending[g] == 0) ready.push(g);
  }
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t g = ready.top();
    ready.pop();
    order.push_back(g);
    for (size_t s : successors[g]) {
      if (--pending[s] == 0) ready.push(s);
    }
  }
  KILN_CHECK(order.size() == groups.size(),
             "fused groups depend on each other in a cycle; fuse-ops produced an invalid grouping");
  return order;
}

void findInputsAndOutputs(const Graph& graph, FusedGroup& group,
                          const std::unordered_map<const Node*, size_t>& owner, size_t self) {
  std::unordered_set<const Value*> seen;
  for (const Node* node : group.nodes) {
    for (const Value* in : node->inputs) {
      if (!in) continue;
      bool inside = in->producer && owner.at(in->producer) == self;
      if (!inside && seen.insert(in).second) group.inputs.push_back(in);
    }
  }
  std::unordered_set<const Value*> usedOutside(graph.outputs().begin(), graph.outputs().end());
  for (const Node* node : graph.nodes()) {
    if (owner.at(node) == self) continue;
    for (const Value* in : node->inputs) {
      if (in) usedOutside.insert(in);
    }
  }
  for (const Node* node : group.nodes) {
    for (const Value* out : node->outputs) {
      if (usedOutside.count(out)) group.outputs.push_back(out);
    }
  }
}

}  // namespace

std::vector<FusedGroup> collectGroups(const Graph& graph) {
  std::unordered_map<const Node*, size_t> owner;
  std::vector<FusedGroup> groups = gather(graph, owner);
  std::vector<size_t> order = scheduleGroups(groups, owner);
  std::set<std::string> names;
  std::vector<FusedGroup> result;
  for (size_t g : order) {
    FusedGroup& group = groups[g];
    findInputsAndOutputs(graph, group, owner, g);
    std::string base = symbolSafe(group.nodes.front()->name);
    std::string name = base;
    for (int i = 1; !names.insert(name).second; ++i) name = strCat(base, "_", i);
    group.name = name;
    result.push_back(std::move(group));
  }
  return result;
}

std::string symbolSafe(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (ok) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty()) return "node";
  if (out[0] >= '0' && out[0] <= '9') out.insert(out.begin(), '_');
  return out;
}

}  // namespace kiln::ir
