// fold-batch-norm: inference batch norm is a per-channel affine map, so it is folded into the
// preceding conv's weights once at compile time, or else lowered to one Mul and one Add.
#include <cmath>
#include <optional>

#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::Value;
using runtime::DataType;
using runtime::NDArray;

bool isFloatType(DataType t) { return t == DataType::float32() || t == DataType::float64(); }

std::vector<double> toDoubles(const NDArray& a) {
  std::vector<double> out(static_cast<size_t>(a.numel()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = a.dtype() == DataType::float64() ? a.data<double>()[i] : a.data<float>()[i];
  }
  return out;
}

NDArray fromDoubles(const std::vector<double>& values, const runtime::Shape& shape, DataType t) {
  NDArray a = NDArray::empty(shape, t);
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == DataType::float64()) {
      a.data<double>()[i] = values[i];
    } else {
      a.data<float>()[i] = static_cast<float>(values[i]);
    }
  }
  return a;
}

// Inference batch norm y = x * scale + shift per channel, from constant parameters.
struct Affine {
  std::vector<double> scale;
  std::vector<double> shift;
};

// The affine form of BN, or nothing when it cannot be folded (training mode, non-constant or
// non-float parameters, used running-statistics outputs).
std::optional<Affine> affineOf(const ir::Graph& graph, const Node& bn) {
  if (bn.inputs.size() != 5 || bn.attrs.getInt("training_mode", 0) != 0) return std::nullopt;
  for (size_t i = 1; i < bn.outputs.size(); ++i) {
    if (graph.isGraphOutput(bn.outputs[i]) || !graph.users(bn.outputs[i]).empty()) {
      return std::nullopt;
    }
  }
  const Value* x = bn.inputs[0];
  if (x == nullptr || x->type.rank() < 2 || !isFloatType(x->type.dtype)) return std::nullopt;
  int64_t channels = x->type.shape[1];
  std::vector<std::vector<double>> p;
  for (size_t i = 1; i < 5; ++i) {
    const Value* v = bn.inputs[i];
    if (v == nullptr || !v->isConstant() || !isFloatType(v->type.dtype) ||
        v->type.numel() != channels) {
      return std::nullopt;
    }
    p.push_back(toDoubles(*v->constant));
  }
  double eps = bn.attrs.getFloat("epsilon", 1e-5);
  Affine a;
  for (int64_t c = 0; c < channels; ++c) {
    double s = p[0][c] / std::sqrt(p[3][c] + eps);
    a.scale.push_back(s);
    a.shift.push_back(p[1][c] - p[2][c] * s);
  }
  return a;
}

// The Conv producing X when its weights (and bias) are constants and BN is its only user.
Node* foldableConv(const ir::Graph& graph, const Value* x) {
  Node* conv = x->producer;
  if (conv == nullptr || conv->op != "Conv" || graph.isGraphOutput(x)) return nullptr;
  if (graph.users(x).size() != 1) return nullptr;
  if (conv->inputs.size() < 2 || conv->inputs[1] == nullptr || !conv->inputs[1]->isConstant()) {
    return nullptr;
  }
  if (!isFloatType(conv->inputs[1]->type.dtype)) return nullptr;
  if (conv->inputs.size() > 2 && conv->inputs[2] &&
      (!conv->inputs[2]->isConstant() || !isFloatType(conv->inputs[2]->type.dtype))) {
    return nullptr;
  }
  return conv;
}

// Replaces every use of BN's output by REPLACEMENT and gives it BN's output name.
void foldIntoConv(ir::Graph& graph, Node* bn, Node* conv, const Affine& a) {
  const Value* w = conv->inputs[1];
  DataType t = w->type.dtype;
  int64_t channels = static_cast<int64_t>(a.scale.size());
  std::vector<double> weights = toDoubles(*w->constant);
  int64_t perChannel = channels ? static_cast<int64_t>(weights.size()) / channels : 0;
  for (size_t i = 0; i < weights.size(); ++i) weights[i] *= a.scale[i / perChannel];
  std::vector<double> bias(channels, 0.0);
  if (conv->inputs.size() > 2 && conv->inputs[2]) bias = toDoubles(*conv->inputs[2]->constant);
  for (int64_t c = 0; c < channels; ++c) bias[c] = bias[c] * a.scale[c] + a.shift[c];
  Value* newW =
      graph.addConstant(graph.uniqueName(w->name + "_bn"), fromDoubles(weights, w->type.shape, t));
  Value* newB =
      graph.addConstant(graph.uniqueName(bn->name + "_bias"), fromDoubles(bias, {channels}, t));
  conv->inputs.resize(3);
  conv->inputs[1] = newW;
  conv->inputs[2] = newB;
  graph.replaceNode(bn, conv->outputs[0]);
}

// Mul + Add with [C,1,...,1] constants broadcasting over the channel axis.
void lowerToMulAdd(ir::Graph& graph, Node* bn, const Affine& a) {
  Value* x = bn->inputs[0];
  runtime::Shape shape(x->type.rank() - 1, 1);
  shape[0] = static_cast<int64_t>(a.scale.size());
  DataType t = x->type.dtype;
  std::string base = bn->name;
  Value* scale =
      graph.addConstant(graph.uniqueName(base + "_scale"), fromDoubles(a.scale, shape, t));
  Value* shift =
      graph.addConstant(graph.uniqueName(base + "_shift"), fromDoubles(a.shift, shape, t));
  Node* mul = graph.insertNode(bn, "Mul", graph.uniqueName(base + "_mul"), {x, scale},
                               {graph.uniqueName(base + "_scaled")});
  ir::inferTypes(*mul);
  Node* add = graph.insertNode(bn, "Add", graph.uniqueName(base + "_add"), {mul->outputs[0], shift},
                               {graph.uniqueName(base + "_shifted")});
  ir::inferTypes(*add);
  graph.replaceNode(bn, add->outputs[0]);
  add->name = base;  // free again now that BN is gone
}

}  // namespace

void foldBatchNorm(ir::Graph& graph) {
  std::vector<Node*> nodes = graph.nodes();
  for (Node* bn : nodes) {
    if (bn->op != "BatchNormalization" || ir::runsInRuntime(*bn)) continue;  // training mode
    std::optional<Affine> affine = affineOf(graph, *bn);
    if (!affine) continue;
    Node* conv = foldableConv(graph, bn->inputs[0]);
    if (conv && conv->inputs[1]->type.rank() >= 1 &&
        conv->inputs[1]->type.shape[0] == static_cast<int64_t>(affine->scale.size())) {
      foldIntoConv(graph, bn, conv, *affine);
    } else {
      lowerToMulAdd(graph, bn, *affine);
    }
  }
  graph.removeDeadCode();
}

}  // namespace kiln::transform
