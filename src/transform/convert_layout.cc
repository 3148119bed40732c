// convert-layout: runs convolution chains in the channel-blocked layout NCHW[b]c (b = the target's
// vector lanes), so convolutions, pools and their elementwise neighbours vectorise over channels,
// and packs conv weights once, here, in the order the micro-kernels read them. Layout changes
// happen only at the edges of a chain.
//
// Nodes are rewritten in topological order. A rewritten node's output is immediately wrapped in a
// LayoutTransform back to NCHW that takes over the old value's name and uses; a later node that
// runs blocked looks through such a transform (blockedOf) instead of converting back and forth,
// and transforms nobody reads any more are removed at the end. Padded channels hold zeros after a
// conv or a transform, and stay finite through the ops allowed here, so they never leak into real
// channels (a conv multiplies them by zero weights).
#include <map>
#include <set>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/window.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"
#include "pack_weights.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::Value;
using runtime::DataType;

// Elementwise ops that map finite inputs to finite outputs: padded lanes stay harmless.
const std::set<std::string>& unaryOps() {
  static const std::set<std::string> kOps = {"Relu", "LeakyRelu",   "Clip",      "Sigmoid",
                                             "Tanh", "HardSigmoid", "HardSwish", "Neg",
                                             "Abs",  "Elu",         "Selu",      "Identity"};
  return kOps;
}
const std::set<std::string>& binaryOps() {
  static const std::set<std::string> kOps = {"Add", "Sub", "Mul", "Max", "Min", "Div", "PRelu"};
  return kOps;
}

bool isFloat32(const Value* v) { return v != nullptr && v->type.dtype == DataType::float32(); }

// A depthwise conv: one input and one output channel per group.
bool isDepthwise(int64_t group, int64_t ic, int64_t oc) {
  return group != 1 && group == ic && group == oc;
}

// The strides, dilations and explicit pads (begins, then ends) of a resolved window.
void setWindow(ir::Attrs& attrs, const ir::WindowGeometry& geo) {
  attrs.set("strides", geo.strides);
  attrs.set("dilations", geo.dilations);
  std::vector<int64_t> pads = geo.padsBegin;
  pads.insert(pads.end(), geo.padsEnd.begin(), geo.padsEnd.end());
  attrs.set("pads", pads);
}

class LayoutConverter {
 public:
  LayoutConverter(ir::Graph& graph, int64_t block) : g_(graph), b_(block) {}

  void run() {
    std::vector<Node*> nodes = g_.nodes();
    for (Node* n : nodes) {
      if (isConvCandidate(*n)) {
        convertConv(n);
      } else if (isPoolCandidate(*n)) {
        convertPool(n);
      } else if (isElementwiseCandidate(*n)) {
        convertElementwise(n);
      } else if (isConcatCandidate(*n)) {
        convertConcat(n);
      }
    }
    g_.removeDeadCode();
  }

 private:
  // ---- which nodes run blocked ----

  bool isConvCandidate(const Node& n) const {
    if (n.op != "Conv" || n.inputs.size() < 2 || n.outputs.size() != 1) return false;
    const Value *x = n.inputs[0], *w = n.inputs[1];
    const Value* bias = n.inputs.size() > 2 ? n.inputs[2] : nullptr;
    if (!isFloat32(x) || x->type.rank() != 4 || !isFloat32(w) || !w->isConstant()) return false;
    if (bias != nullptr && !bias->isConstant()) return false;
    int64_t group = n.attrs.getInt("group", 1);
    int64_t ic = x->type.shape[1], oc = w->type.shape[0];
    bool wholeBlocks = group > 1 && ic % group == 0 && oc % group == 0 && (ic / group) % b_ == 0 &&
                       (oc / group) % b_ == 0;
    return group == 1 || isDepthwise(group, ic, oc) || wholeBlocks;
  }

  bool isPoolCandidate(const Node& n) const {
    bool window = n.op == "MaxPool" || n.op == "AveragePool";
    bool global = n.op == "GlobalAveragePool" || n.op == "GlobalMaxPool";
    if ((!window && !global) || n.outputs.size() != 1 || n.inputs.empty()) return false;
    const Value* x = n.inputs[0];
    return isFloat32(x) && x->type.rank() == 4 && blockedOf(x) != nullptr;
  }

  bool isElementwiseCandidate(const Node& n) const {
    bool unary = unaryOps().count(n.op) != 0, binary = binaryOps().count(n.op) != 0;
    if ((!unary && !binary) || n.outputs.size() != 1) return false;
    const Value* out = n.outputs[0];
    if (!isFloat32(out) || out->type.rank() != 4) return false;
    bool anyBlocked = false;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const Value* v = n.inputs[i];
      if (v == nullptr) continue;
      // A computed divisor is zero in the padded channels; only constants get a padding of 1.
      if (n.op == "Div" && i == 1 && !v->isConstant()) return false;
      if (blockedOf(v) != nullptr) {
        // A blocked operand broadcasts correctly only with all of the output's channels.
        if (v->type.shape[1] != out->type.shape[1]) return false;
        anyBlocked = true;
        continue;
      }
      // The first input of a unary op is its data; its other inputs (Clip's bounds) are scalars.
      if (unary && i > 0) {
        if (!v->isConstant() || v->type.numel() != 1) return false;
      } else if (!convertible(v, out->type.shape[1])) {
        return false;
      }
    }
    return anyBlocked;
  }

  // Whether input V of an op with CHANNELS output channels can take part blocked: a scalar, a
  // constant broadcasting per channel or over channels, or a plain 4-D value of those channels.
  bool convertible(const Value* v, int64_t channels) const {
    if (v->isConstant()) {
      if (v->type.numel() == 1) return true;
      if (v->type.rank() > 4 || !isFloat32(v)) return false;
      ir::Shape s = v->type.shape;
      while (s.size() < 4) s.insert(s.begin(), 1);
      return s[1] == channels || s[1] == 1;
    }
    return isFloat32(v) && v->type.rank() == 4 && v->type.shape[1] == channels;
  }

  bool isConcatCandidate(const Node& n) const {
    if (n.op != "Concat" || n.outputs.size() != 1 || !isFloat32(n.outputs[0])) return false;
    if (n.outputs[0]->type.rank() != 4) return false;
    int64_t axis = n.attrs.getInt("axis", 0);
    if (axis != 1 && axis != -3) return false;
    bool anyBlocked = false;
    for (const Value* v : n.inputs) {
      if (v == nullptr || v->type.rank() != 4 || v->type.shape[1] % b_ != 0) return false;
      anyBlocked = anyBlocked || blockedOf(v) != nullptr;
    }
    return anyBlocked;
  }

  // ---- rewriting ----

  // The blocked value V was converted from, when V is a LayoutTransform back to NCHW.
  Value* blockedOf(const Value* v) const {
    const Node* p = v->producer;
    if (p == nullptr || p->op != "kiln.LayoutTransform") return nullptr;
    if (p->attrs.getString("to", "") != "plain" || p->attrs.getInt("block", 0) != b_) {
      return nullptr;
    }
    return p->inputs[0];
  }

  // V in the blocked layout: its blocked source, or a (shared) transform inserted before AT.
  Value* toBlocked(Value* v, Node* at) {
    if (Value* src = blockedOf(v)) return src;
    auto it = converted_.find(v);
    if (it != converted_.end()) return it->second;
    ir::Attrs attrs;
    attrs.set("to", std::string("blocked"));
    attrs.set("block", b_);
    Node* t = g_.insertNode(at, "kiln.LayoutTransform", "", {v},
                            {g_.uniqueName(v->name + "_blocked")}, attrs);
    ir::inferTypes(*t);
    converted_[v] = t->outputs[0];
    return t->outputs[0];
  }

  // Replaces OLD_NODE (one output) by NEW_NODE, whose output is blocked: OLD_NODE's users and
  // name go to a transform back to NCHW.
  void replaceWithBlocked(Node* oldNode, Node* newNode) {
    ir::inferTypes(*newNode);
    Value* old = oldNode->outputs[0];
    ir::Attrs attrs;
    attrs.set("to", std::string("plain"));
    attrs.set("block", b_);
    attrs.set("channels", old->type.shape[1]);
    Node* back = g_.insertNode(oldNode, "kiln.LayoutTransform", "", {newNode->outputs[0]},
                               {g_.uniqueName(old->name + "_plain")}, attrs);
    ir::inferTypes(*back);
    KILN_CHECK(back->outputs[0]->type == old->type, "convert-layout changed ", old->name, " from ",
               old->type.str(), " to ", back->outputs[0]->type.str());
    g_.replaceNode(oldNode, back->outputs[0], newNode);
  }

  Value* constant(const std::string& base, runtime::NDArray data) {
    return g_.addConstant(g_.uniqueName(base), std::move(data));
  }

  // "<value>_b": kiln compare (driver/compare_model.cc) finds the model value a blocked tensor
  // holds by this name.
  std::string blockedName(const Node* n) const { return g_.uniqueName(n->outputs[0]->name + "_b"); }
  // The replacement's name until the node it replaces is gone and it can take that name.
  std::string tempName(const Node* n) const { return g_.uniqueName(n->name + "_blocked"); }

  void convertConv(Node* n) {
    Value *x = n->inputs[0], *w = n->inputs[1];
    Value* bias = n->inputs.size() > 2 ? n->inputs[2] : nullptr;
    int64_t ic = x->type.shape[1], oc = w->type.shape[0];
    int64_t group = n->attrs.getInt("group", 1);
    bool depthwise = isDepthwise(group, ic, oc);
    ir::Shape kernel(w->type.shape.begin() + 2, w->type.shape.end());
    ir::WindowGeometry geo =
        ir::resolveWindow(*n, ir::Shape(x->type.shape.begin() + 2, x->type.shape.end()), kernel);
    bool plainInput = group == 1 && blockedOf(x) == nullptr && ic < b_;
    Value* in = plainInput ? x : toBlocked(x, n);
    runtime::NDArray packed = depthwise    ? packDepthwiseWeights(*w->constant, b_)
                              : plainInput ? packConvWeightsPlainInput(*w->constant, b_)
                                           : packConvWeightsBlocked(*w->constant, b_);
    std::vector<Value*> inputs = {in, constant(w->name + "_packed", std::move(packed))};
    if (bias != nullptr) {
      inputs.push_back(constant(bias->name + "_packed", packBias(*bias->constant, b_)));
    }
    ir::Attrs attrs;
    attrs.set("kernel_shape", kernel);
    setWindow(attrs, geo);
    attrs.set("group", group);
    attrs.set("channels", oc);
    attrs.set("in_channels", ic);
    attrs.set("block", b_);
    attrs.set("input_layout", std::string(plainInput ? "plain" : "blocked"));
    Node* conv = g_.insertNode(n, "kiln.ConvBlocked", tempName(n), inputs, {blockedName(n)}, attrs);
    replaceWithBlocked(n, conv);
  }

  void convertPool(Node* n) {
    Value* x = n->inputs[0];
    bool global = n->op.rfind("Global", 0) == 0;
    ir::Shape spatial(x->type.shape.begin() + 2, x->type.shape.end());
    ir::Attrs attrs;
    attrs.set("mode", std::string(n->op.find("Max") != std::string::npos ? "max" : "avg"));
    attrs.set("block", b_);
    if (global) {
      attrs.set("kernel_shape", spatial);
    } else {
      ir::WindowGeometry geo = ir::resolveWindow(*n, spatial, n->attrs.getInts("kernel_shape", {}));
      attrs.set("kernel_shape", geo.kernel);
      setWindow(attrs, geo);
      attrs.set("ceil_mode", int64_t{geo.ceilMode ? 1 : 0});
      attrs.set("count_include_pad", n->attrs.getInt("count_include_pad", 0));
    }
    Node* pool =
        g_.insertNode(n, "kiln.PoolBlocked", tempName(n), {blockedOf(x)}, {blockedName(n)}, attrs);
    replaceWithBlocked(n, pool);
  }

  void convertElementwise(Node* n) {
    int64_t channels = n->outputs[0]->type.shape[1];
    std::vector<Value*> inputs;
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      Value* v = n->inputs[i];
      if (v == nullptr || (v->isConstant() && v->type.numel() == 1)) {
        inputs.push_back(v);
      } else if (v->isConstant()) {
        double fill = n->op == "Div" && i == 1 ? 1.0 : 0.0;  // keeps padded lanes finite
        inputs.push_back(
            constant(v->name + "_blocked", blockConstant(*v->constant, channels, b_, fill)));
      } else {
        inputs.push_back(toBlocked(v, n));
      }
    }
    Node* m = g_.insertNode(n, n->op, tempName(n), inputs, {blockedName(n)}, n->attrs);
    replaceWithBlocked(n, m);
  }

  void convertConcat(Node* n) {
    std::vector<Value*> inputs;
    for (Value* v : n->inputs) inputs.push_back(toBlocked(v, n));
    ir::Attrs attrs = n->attrs;
    attrs.set("axis", int64_t{1});
    Node* m = g_.insertNode(n, "Concat", tempName(n), inputs, {blockedName(n)}, attrs);
    replaceWithBlocked(n, m);
  }

  ir::Graph& g_;
  int64_t b_;
  std::map<const Value*, Value*> converted_;
};

}  // namespace

void convertLayout(ir::Graph& graph, int64_t block) {
  if (block <= 1) return;
  LayoutConverter(graph, block).run();
}

}  // namespace kiln::transform
