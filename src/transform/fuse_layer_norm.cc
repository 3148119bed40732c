// fuse-layer-norm: exporters for opsets before 17 spell LayerNorm out as nine nodes (mean,
// subtract, square, mean, add epsilon, square root, divide, scale, shift); each would be a kernel
// of its own reading the row again. Recognising the pattern gives one LayerNormalization, which
// lowers to one fused reduction per row.
#include <cmath>
#include <optional>

#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"
#include "pattern_util.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::Value;
using runtime::DataType;

class Matcher {
 public:
  explicit Matcher(ir::Graph& g) : g_(g) {}

  // A fusion removes nodes, so the scan starts over after each one.
  void run() {
    bool fused = true;
    while (fused) {
      fused = false;
      for (Node* n : g_.nodes()) {
        if (n->op == "ReduceMean" && tryFuse(n)) {
          fused = true;
          break;
        }
      }
    }
  }

 private:
  // The one node using V (and using it once), when V is no graph output.
  Node* onlyUser(const Value* v, const char* op) const {
    if (g_.isGraphOutput(v)) return nullptr;
    std::vector<Node*> users = g_.users(v);
    if (users.size() != 1 || users[0]->op != op) return nullptr;
    return users[0];
  }

  // Whether N reduces over the last axis only, keeping it.
  static bool overLastAxis(const Node& n) {
    if (n.inputs.size() != 1 || n.attrs.getInt("keepdims", 1) != 1) return false;
    int64_t rank = n.inputs[0]->type.rank();
    std::vector<int64_t> axes = n.attrs.getInts("axes", {});
    return rank >= 1 && axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
  }

  // A constant broadcasting along the last axis only (shape [D] or [1, ..., D]).
  static bool perFeature(const Value* c, int64_t d) {
    if (c == nullptr || !c->isConstant() || c->type.dtype != DataType::float32()) return false;
    const ir::Shape& s = c->type.shape;
    if (s.empty() || s.back() != d) return false;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      if (s[i] != 1) return false;
    }
    return true;
  }

  // Replaces the pattern starting at MEAN; false when MEAN does not start one.
  bool tryFuse(Node* mean) {
    if (!overLastAxis(*mean)) return false;
    Value* x = mean->inputs[0];
    if (x->type.dtype != DataType::float32()) return false;
    int64_t d = x->type.shape.back();
    Node* sub = onlyUser(mean->outputs[0], "Sub");
    if (sub == nullptr || sub->inputs[0] != x || sub->inputs[1] != mean->outputs[0]) return false;
    Value* centred = sub->outputs[0];
    std::vector<Node*> users = g_.users(centred);
    if (users.size() != 2 || g_.isGraphOutput(centred)) return false;
    Node* square = users[0]->op == "Div" ? users[1] : users[0];
    Node* div = users[0]->op == "Div" ? users[0] : users[1];
    bool isSquare = (square->op == "Pow" && square->inputs[0] == centred &&
                     scalarConstant(square->inputs[1]) == 2.0) ||
                    (square->op == "Mul" && square->inputs.size() == 2 &&
                     square->inputs[0] == centred && square->inputs[1] == centred);
    if (!isSquare || div->op != "Div" || div->inputs[0] != centred) return false;
    Node* var = onlyUser(square->outputs[0], "ReduceMean");
    if (var == nullptr || !overLastAxis(*var)) return false;
    Node* addEps = onlyUser(var->outputs[0], "Add");
    if (addEps == nullptr) return false;
    std::optional<double> eps = scalarConstant(otherOperand(*addEps, var->outputs[0]));
    Node* sqrt = eps ? onlyUser(addEps->outputs[0], "Sqrt") : nullptr;
    if (sqrt == nullptr || onlyUser(sqrt->outputs[0], "Div") != div ||
        div->inputs[1] != sqrt->outputs[0]) {
      return false;
    }
    // The affine part: scale, then shift (both optional).
    Node* last = div;
    Value* scale = nullptr;
    Value* shift = nullptr;
    if (Node* mul = onlyUser(div->outputs[0], "Mul")) {
      Value* s = otherOperand(*mul, div->outputs[0]);
      if (perFeature(s, d)) {
        scale = s;
        last = mul;
        if (Node* add = onlyUser(mul->outputs[0], "Add")) {
          Value* b = otherOperand(*add, mul->outputs[0]);
          if (perFeature(b, d)) {
            shift = b;
            last = add;
          }
        }
      }
    }
    replace(x, last, scale, shift, *eps);
    return true;
  }

  void replace(Value* x, Node* last, Value* scale, Value* shift, double eps) {
    int64_t d = x->type.shape.back();
    auto flat = [&](Value* c, float fill, const std::string& hint) {
      runtime::NDArray a = runtime::NDArray::empty({d}, DataType::float32());
      for (int64_t i = 0; i < d; ++i) a.data<float>()[i] = c ? c->constant->data<float>()[i] : fill;
      return g_.addConstant(g_.uniqueName(hint), a);
    };
    Value* s = flat(scale, 1.0f, last->name + "_scale");
    Value* b = flat(shift, 0.0f, last->name + "_shift");
    ir::Attrs attrs;
    attrs.set("axis", int64_t{-1});
    attrs.set("epsilon", eps);
    Node* ln = g_.insertNode(last, "LayerNormalization", g_.uniqueName(last->name + "_ln"),
                             {x, s, b}, {g_.uniqueName(last->outputs[0]->name + "_ln")}, attrs);
    ir::inferTypes(*ln);
    g_.replaceNode(last, ln->outputs[0]);
    g_.removeDeadCode();
  }

  ir::Graph& g_;
};

}  // namespace

void fuseLayerNorm(ir::Graph& graph) { Matcher(graph).run(); }

}  // namespace kiln::transform
