// fuse-attention: exporters spell scaled dot-product attention as MatMul(Q, Transpose(K)), a
// scale, a mask, Softmax and MatMul with V, each a kernel that writes the whole score matrix
// out and reads it back; grouped-query models first copy every key and value head for its
// query heads (Hugging Face's repeat_kv). One kiln.Attention reads Q, K and V once, never
// materialises the scores, and reads the shared key/value heads in place.
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

Node* producerOf(const Value* v, const char* op) {
  return v != nullptr && v->producer != nullptr && v->producer->op == op ? v->producer : nullptr;
}

// A value times or divided by a scalar constant: the value and the factor.
struct Scaled {
  Value* value = nullptr;
  double factor = 1;
};

Scaled stripScale(Value* v) {
  Scaled s{v, 1};
  for (int depth = 0; depth < 2; ++depth) {
    Node* n = s.value->producer;
    if (n == nullptr || n->inputs.size() != 2) break;
    if (n->op == "Div" && scalarConstant(n->inputs[1])) {
      s.factor /= *scalarConstant(n->inputs[1]);
      s.value = n->inputs[0];
    } else if (n->op == "Mul" && scalarConstant(n->inputs[1])) {
      s.factor *= *scalarConstant(n->inputs[1]);
      s.value = n->inputs[0];
    } else if (n->op == "Mul" && scalarConstant(n->inputs[0])) {
      s.factor *= *scalarConstant(n->inputs[0]);
      s.value = n->inputs[1];
    } else {
      break;
    }
  }
  return s;
}

// Key or value heads and how many query heads share each: repeat_kv's
// Reshape(Expand(Unsqueeze(x [B,KVH,L,D]) [B,KVH,1,L,D]) [B,KVH,G,L,D]) [B,KVH*G,L,D] is x
// shared by G heads; anything else is itself (G = 1).
Value* stripRepeat(Value* v) {
  Node* reshape = producerOf(v, "Reshape");
  Node* expand = reshape ? producerOf(reshape->inputs[0], "Expand") : nullptr;
  Node* unsqueeze = expand ? producerOf(expand->inputs[0], "Unsqueeze") : nullptr;
  if (unsqueeze == nullptr) return v;
  Value* x = unsqueeze->inputs[0];
  if (x->type.rank() != 4 || expand->outputs[0]->type.rank() != 5) return v;
  opdef::DimList xd = x->type.dims(), ed = expand->outputs[0]->type.dims();
  opdef::Dim g = ed[2];
  bool repeats =
      g.isConst() &&
      unsqueeze->outputs[0]->type.dims() == opdef::DimList{xd[0], xd[1], 1, xd[2], xd[3]} &&
      ed == opdef::DimList{xd[0], xd[1], g, xd[2], xd[3]} &&
      v->type.dims() == opdef::DimList{xd[0], xd[1] * g, xd[2], xd[3]};
  return repeats ? x : v;
}

// K from Kᵀ: a Transpose swapping the last two axes of a rank-4 tensor, scales either side.
std::optional<Scaled> keysOf(Value* kt) {
  Scaled outer = stripScale(kt);
  Node* t = producerOf(outer.value, "Transpose");
  if (t == nullptr || t->attrs.getInts("perm", {}) != std::vector<int64_t>{0, 1, 3, 2}) {
    return std::nullopt;
  }
  Scaled inner = stripScale(t->inputs[0]);
  return Scaled{stripRepeat(inner.value), outer.factor * inner.factor};
}

struct Pattern {
  Value *q = nullptr, *k = nullptr, *v = nullptr, *mask = nullptr;
  double scale = 1;
  std::optional<double> maskFill;  // for a bool mask
};

// The scores Q Kᵀ · scale computed into S; false when S is not that.
bool matchScores(Value* s, Pattern& p) {
  Scaled scores = stripScale(s);
  Node* mm = producerOf(scores.value, "MatMul");
  if (mm == nullptr) return false;
  Scaled q = stripScale(mm->inputs[0]);
  std::optional<Scaled> k = keysOf(mm->inputs[1]);
  if (!k) return false;
  p.q = q.value;
  p.k = k->value;
  p.scale = scores.factor * q.factor * k->factor;
  return true;
}

// The masked scores feeding Softmax: scores + mask, Where(mask, scores, fill), or the scores.
bool matchMaskedScores(Value* x, Pattern& p) {
  if (Node* add = producerOf(x, "Add")) {
    for (int side = 0; side < 2; ++side) {
      if (matchScores(add->inputs[side], p)) {
        p.mask = add->inputs[1 - side];
        return p.mask->type.dtype == x->type.dtype;
      }
    }
  }
  if (Node* where = producerOf(x, "Where")) {
    std::optional<double> fill = scalarConstant(where->inputs[2]);
    if (fill && where->inputs[0]->type.dtype == DataType::boolean() &&
        matchScores(where->inputs[1], p)) {
      p.mask = where->inputs[0];
      p.maskFill = fill;
      return true;
    }
  }
  return matchScores(x, p);
}

// Whether the pattern's tensors are what kiln.Attention takes: rank 4, float32, the same batch
// and key length, query heads a multiple of the key/value heads.
bool fits(const Pattern& p) {
  for (const Value* t : {p.q, p.k, p.v}) {
    if (t->type.rank() != 4 || t->type.dtype != DataType::float32()) return false;
  }
  opdef::DimList q = p.q->type.dims(), k = p.k->type.dims(), v = p.v->type.dims();
  if (!q[1].isConst() || !k[1].isConst() || k[1] != v[1] || k[1].value() < 1 ||
      q[1].value() % k[1].value() != 0) {
    return false;
  }
  return q[3] == k[3] && opdef::sameSize(k[2], v[2]) && opdef::sameSize(q[0], k[0]) &&
         opdef::sameSize(q[0], v[0]);
}

// Replaces the attention ending in PV = MatMul(Softmax(...), V); false when PV ends none.
bool tryFuse(ir::Graph& g, Node* pv) {
  Node* softmax = producerOf(pv->inputs[0], "Softmax");
  if (softmax == nullptr || softmax->attrs.has("kiln.softmax_legacy")) return false;
  const Value* probs = softmax->outputs[0];
  int64_t rank = probs->type.rank();
  int64_t axis = softmax->attrs.getInt("axis", -1);
  if (rank != 4 || (axis != -1 && axis != rank - 1) || g.users(probs).size() != 1 ||
      g.isGraphOutput(probs)) {
    return false;
  }
  Pattern p;
  p.v = stripRepeat(pv->inputs[1]);
  if (!matchMaskedScores(softmax->inputs[0], p) || !fits(p)) return false;
  ir::Attrs attrs;
  attrs.set("scale", p.scale);
  if (p.maskFill) attrs.set("mask_fill", *p.maskFill);
  std::vector<Value*> inputs{p.q, p.k, p.v};
  if (p.mask != nullptr) inputs.push_back(p.mask);
  Node* attention =
      g.insertNode(pv, "kiln.Attention", g.uniqueName(pv->name + "_attention"), inputs,
                   {g.uniqueName(pv->outputs[0]->name + "_attention")}, attrs);
  try {
    ir::inferTypes(*attention);
  } catch (const Error&) {
    // A mask that does not broadcast to the scores, say: the nodes stay as they are.
    g.removeNode(attention);
    return false;
  }
  if (attention->outputs[0]->type.dims() != pv->outputs[0]->type.dims()) {
    g.removeNode(attention);
    return false;
  }
  g.replaceNode(pv, attention->outputs[0]);
  return true;
}

}  // namespace

void fuseAttention(ir::Graph& graph) {
  bool fused = false;
  for (Node* n : std::vector<Node*>(graph.nodes())) {
    if (n->op == "MatMul" && n->inputs.size() == 2) fused = tryFuse(graph, n) || fused;
  }
  if (fused) graph.removeDeadCode();
}

}  // namespace kiln::transform
