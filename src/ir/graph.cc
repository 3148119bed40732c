// Graph construction and mutation; every mutation leaves nodes() in topological order.
#include "kiln/ir/graph.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"

namespace kiln::ir {

Value* Graph::newValue(const std::string& name) {
  values_.push_back(std::make_unique<Value>());
  Value* v = values_.back().get();
  v->name = name;
  owned_.insert(v);
  return v;
}

Value* Graph::addInput(const std::string& name, TensorType type) {
  KILN_CHECK(!name.empty(), "graph inputs need a name");
  Value* v = newValue(name);
  v->type = std::move(type);
  inputs_.push_back(v);
  return v;
}

Value* Graph::addConstant(const std::string& name, NDArray data) {
  KILN_CHECK(data.defined(), "constant '", name, "' has no data");
  Value* v = newValue(name.empty() ? uniqueName("const") : name);
  v->type = TensorType{data.dtype(), data.shape()};
  v->constant = std::move(data);
  return v;
}

const OpRegistry& Graph::ops() const { return ops_ ? *ops_ : *OpRegistry::builtin(); }

const std::shared_ptr<const OpRegistry>& Graph::opsPtr() const {
  return ops_ ? ops_ : OpRegistry::builtin();
}

Node* Graph::createNode(size_t position, const std::string& op, const std::string& name,
                        std::vector<Value*> inputs, const std::vector<std::string>& outputNames,
                        Attrs attrs) {
  for (Value* in : inputs) {
    if (!in) continue;
    KILN_CHECK(owns(in), "input '", in->name, "' of new ", op, " node '", name,
               "' is not a value of this graph");
    if (in->producer) {
      auto end = order_.begin() + static_cast<std::ptrdiff_t>(position);
      KILN_CHECK(std::find(order_.begin(), end, in->producer) != end, "input '", in->name,
                 "' of new ", op, " node '", name, "' is produced after the insertion point");
    }
  }
  nodeStore_.push_back(std::make_unique<Node>());
  Node* node = nodeStore_.back().get();
  node->op = op;
  node->graph = this;
  node->inputs = std::move(inputs);
  node->attrs = std::move(attrs);
  for (size_t i = 0; i < outputNames.size(); ++i) {
    std::string outName = outputNames[i];
    if (outName.empty()) outName = uniqueName(name.empty() ? op : name);
    Value* v = newValue(outName);
    v->producer = node;
    v->outputIndex = static_cast<int>(i);
    node->outputs.push_back(v);
  }
  if (!name.empty()) {
    node->name = name;
  } else {
    node->name = node->outputs.empty() ? uniqueName(op) : node->outputs[0]->name;
  }
  order_.insert(order_.begin() + static_cast<std::ptrdiff_t>(position), node);
  return node;
}

Node* Graph::addNode(const std::string& op, const std::string& name, std::vector<Value*> inputs,
                     const std::vector<std::string>& outputNames, Attrs attrs) {
  return createNode(order_.size(), op, name, std::move(inputs), outputNames, std::move(attrs));
}

Node* Graph::insertNode(Node* before, const std::string& op, const std::string& name,
                        std::vector<Value*> inputs, const std::vector<std::string>& outputNames,
                        Attrs attrs) {
  auto it = std::find(order_.begin(), order_.end(), before);
  KILN_CHECK(it != order_.end(), "insertNode: the anchor node is not in this graph");
  return createNode(static_cast<size_t>(it - order_.begin()), op, name, std::move(inputs),
                    outputNames, std::move(attrs));
}

void Graph::eraseValues(const std::unordered_set<const Value*>& dead) {
  if (dead.empty()) return;
  for (const Value* v : dead) owned_.erase(v);
  std::erase_if(values_, [&](const std::unique_ptr<Value>& v) { return dead.count(v.get()); });
}

void Graph::removeNode(Node* node) {
  auto it = std::find(order_.begin(), order_.end(), node);
  KILN_CHECK(it != order_.end(), "removeNode: node is not in this graph");
  std::unordered_set<const Value*> outs(node->outputs.begin(), node->outputs.end());
  for (const Node* other : order_) {
    if (other == node) continue;
    for (const Value* in : other->inputs) {
      KILN_CHECK(!outs.count(in), "removeNode: output '", in ? in->name : "", "' of ", node->op,
                 " '", node->name, "' is still used by ", other->op, " '", other->name, "'");
    }
  }
  for (const Value* out : node->outputs) {
    KILN_CHECK(!isGraphOutput(out), "removeNode: output '", out->name, "' is a graph output");
  }
  order_.erase(it);
  eraseValues(outs);
  std::erase_if(nodeStore_, [&](const std::unique_ptr<Node>& n) { return n.get() == node; });
}

// The nodes TO is computed from, including its producer: rewiring them to TO would be a cycle.
static std::unordered_set<const Node*> ancestors(const Value* to) {
  std::unordered_set<const Node*> seen;
  std::vector<const Node*> stack;
  if (to->producer) stack.push_back(to->producer);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    for (const Value* in : n->inputs) {
      if (in && in->producer) stack.push_back(in->producer);
    }
  }
  return seen;
}

void Graph::replaceAllUses(Value* from, Value* to) {
  KILN_CHECK(owns(from) && owns(to), "replaceAllUses: values must belong to this graph");
  if (from == to) return;
  std::unordered_set<const Node*> skip = ancestors(to);
  bool rewired = false;
  for (Node* node : order_) {
    if (skip.count(node)) continue;
    for (Value*& in : node->inputs) {
      if (in == from) {
        in = to;
        rewired = true;
      }
    }
  }
  for (Value*& out : outputs_) {
    if (out == from) out = to;
  }
  if (rewired) restoreTopologicalOrder();
}

void Graph::replaceNode(Node* node, Value* replacement, Node* heir) {
  KILN_CHECK(node->outputs.size() == 1, "replaceNode: ", node->op, " '", node->name, "' has ",
             node->outputs.size(), " outputs; expected one");
  std::string name = node->name, outName = node->outputs[0]->name;
  replaceAllUses(node->outputs[0], replacement);
  removeNode(node);
  replacement->name = outName;
  if (heir != nullptr) heir->name = name;
}

// Stable topological sort: keeps the current order wherever it is already valid.
void Graph::restoreTopologicalOrder() {
  std::unordered_map<const Node*, size_t> position;
  for (size_t i = 0; i < order_.size(); ++i) position[order_[i]] = i;
  bool sorted = true;
  for (size_t i = 0; i < order_.size() && sorted; ++i) {
    for (const Value* in : order_[i]->inputs) {
      if (in && in->producer && position.at(in->producer) >= i) sorted = false;
    }
  }
  if (sorted) return;
  std::vector<int> pending(order_.size(), 0);
  std::vector<std::vector<size_t>> consumers(order_.size());
  for (size_t i = 0; i < order_.size(); ++i) {
    std::unordered_set<const Node*> producers;
    for (const Value* in : order_[i]->inputs) {
      if (in && in->producer && producers.insert(in->producer).second) {
        ++pending[i];
        consumers[position.at(in->producer)].push_back(i);
      }
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < order_.size(); ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<Node*> result;
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    result.push_back(order_[i]);
    for (size_t c : consumers[i]) {
      if (--pending[c] == 0) ready.push(c);
    }
  }
  KILN_CHECK(result.size() == order_.size(), "graph mutation created a cycle");
  order_ = std::move(result);
}

std::vector<Node*> Graph::users(const Value* v) const {
  std::vector<Node*> result;
  for (Node* node : order_) {
    if (std::find(node->inputs.begin(), node->inputs.end(), v) != node->inputs.end()) {
      result.push_back(node);
    }
  }
  return result;
}

bool Graph::isGraphOutput(const Value* v) const {
  return std::find(outputs_.begin(), outputs_.end(), v) != outputs_.end();
}

void Graph::removeDeadCode() {
  std::unordered_set<const Value*> live(outputs_.begin(), outputs_.end());
  std::unordered_set<const Node*> liveNodes;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    Node* node = *it;
    bool used = std::any_of(node->outputs.begin(), node->outputs.end(),
                            [&](const Value* out) { return live.count(out) != 0; });
    if (!used) continue;
    liveNodes.insert(node);
    for (const Value* in : node->inputs) {
      if (in) live.insert(in);
    }
  }
  std::unordered_set<const Value*> dead;
  for (const Node* node : order_) {
    if (!liveNodes.count(node)) dead.insert(node->outputs.begin(), node->outputs.end());
  }
  for (const auto& v : values_) {
    if (!v->producer && v->isConstant() && !live.count(v.get())) dead.insert(v.get());
  }
  std::erase_if(order_, [&](const Node* n) { return !liveNodes.count(n); });
  eraseValues(dead);
  std::erase_if(nodeStore_,
                [&](const std::unique_ptr<Node>& n) { return !liveNodes.count(n.get()); });
}

std::vector<Value*> Graph::constants() const {
  std::vector<Value*> result;
  for (const auto& v : values_) {
    if (!v->producer && v->isConstant()) result.push_back(v.get());
  }
  return result;
}

Value* Graph::findValue(const std::string& name) const {
  for (const auto& v : values_) {
    if (v->name == name) return v.get();
  }
  return nullptr;
}

std::string Graph::uniqueName(const std::string& prefix) const {
  std::string base = prefix.empty() ? "v" : prefix;
  std::unordered_set<std::string> used;
  for (const auto& v : values_) used.insert(v->name);
  for (const Node* n : order_) used.insert(n->name);
  if (!used.count(base)) return base;
  for (int64_t i = 1;; ++i) {
    std::string candidate = strCat(base, "_", i);
    if (!used.count(candidate)) return candidate;
  }
}

}  // namespace kiln::ir
