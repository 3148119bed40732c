// Checks graph invariants after every pass, so a pass that breaks the graph is named at once
// rather than surfacing later as a miscompile.
#include "kiln/ir/verifier.h"

#include <unordered_set>

#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"

namespace kiln::ir {

namespace {

template <typename... Args>
[[noreturn]] void broken(Args&&... args) {
  throw InternalError(strCat("invalid graph: ", std::forward<Args>(args)...));
}

class Verifier {
 public:
  explicit Verifier(const Graph& g) : g_(g) {}

  void run() {
    for (const Value* v : g_.inputs()) {
      checkOwned(v, "graph input");
      if (v->producer || v->isConstant())
        broken("graph input %", v->name, " has a producer or data");
      defineValue(v);
    }
    for (const Value* v : g_.constants()) {
      checkOwned(v, "constant");
      if (v->type != TensorType{v->constant->dtype(), v->constant->shape()}) {
        broken("constant %", v->name, " has type ", v->type.str(), " but its data is ",
               v->constant->dtype().str(), runtime::shapeStr(v->constant->shape()));
      }
      defineValue(v);
    }
    for (const Node* node : g_.nodes()) checkNode(*node);
    for (const Value* v : g_.outputs()) {
      if (!v || !defined_.count(v)) broken("graph output %", v ? v->name : "?", " is not defined");
    }
  }

 private:
  const Graph& g_;
  std::unordered_set<const Value*> defined_;
  std::unordered_set<std::string> valueNames_;
  std::unordered_set<std::string> nodeNames_;

  void checkOwned(const Value* v, const char* what) {
    if (!v) broken("null ", what);
    if (!g_.owns(v)) broken(what, " %", v->name, " does not belong to the graph");
  }

  void defineValue(const Value* v) {
    if (!valueNames_.insert(v->name).second) broken("value name %", v->name, " is used twice");
    defined_.insert(v);
  }

  void checkNode(const Node& node) {
    std::string label = nodeLabel(node);
    if (node.graph != &g_) broken(label, ": belongs to another graph");
    if (!nodeNames_.insert(node.name).second) broken("node name '", node.name, "' is used twice");
    if (!g_.ops().find(node.op)) broken(label, ": op '", node.op, "' is not registered");
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const Value* in = node.inputs[i];
      if (!in) continue;
      checkOwned(in, "node input");
      if (!defined_.count(in)) {
        broken(label, ": input ", i, " %", in->name,
               " is used before it is defined "
               "(nodes are not in topological order)");
      }
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const Value* out = node.outputs[i];
      checkOwned(out, "node output");
      if (out->producer != &node || out->outputIndex != static_cast<int>(i)) {
        broken(label, ": output ", i, " %", out->name, " names another producer or index");
      }
      defineValue(out);
    }
    std::vector<TensorType> types;
    try {
      types = inferredOutputTypes(node);
    } catch (const Error& e) {
      broken("type inference fails: ", e.what());
    }
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i] != node.outputs[i]->type) {
        broken(label, ": output %", node.outputs[i]->name, " has type ",
               node.outputs[i]->type.str(), " but inference gives ", types[i].str());
      }
    }
  }
};

}  // namespace

void verifyGraph(const Graph& graph) { Verifier(graph).run(); }

}  // namespace kiln::ir
