// cache-in-place: a decoder exported with its key/value cache concatenates each past input with
// the step's new keys or values into the present output, copying the whole cache every step.
// When the concatenation feeds only fused attention, the past and the present can share one
// buffer laid out for the cache's capacity: the Concat becomes a kiln.CacheAppend that writes the
// new rows only, and the attention reads the keys and values at the capacity's row stride.
#include <map>

#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::Value;

constexpr int64_t kCacheAxis = 2;  // kiln.Attention's keys are [batch, heads, length, dim]

// Whether every user of V only reads its shape.
bool onlyShapeReaders(const ir::Graph& g, const Value* v, const Node* except) {
  for (const Node* n : g.users(v)) {
    if (n != except && n->op != "Shape" && n->op != "Size") return false;
  }
  return true;
}

// The rows the cache of CONCAT holds (its output's length at the bounds), or 0 when CONCAT is not
// a cache: a graph input (the past, read by nothing else) and a computed value concatenated on
// the length axis into a graph output that only kiln.Attention reads, as keys or values.
int64_t cacheRows(const ir::Graph& g, const Node& concat) {
  if (concat.op != "Concat" || concat.inputs.size() != 2 || ir::runsInRuntime(concat)) return 0;
  const Value *past = concat.inputs[0], *present = concat.outputs[0];
  if (past == nullptr || concat.inputs[1] == nullptr || past == concat.inputs[1]) return 0;
  if (past->producer != nullptr || past->isConstant() || g.isGraphOutput(past)) return 0;
  if (!onlyShapeReaders(g, past, &concat) || !g.isGraphOutput(present)) return 0;
  const ir::TensorType& t = present->type;
  int64_t axis = concat.attrs.getInt("axis", 0);
  if (t.rank() != 4 || (axis != kCacheAxis && axis != kCacheAxis - 4)) return 0;
  if (past->type.dim(kCacheAxis).isConst()) return 0;  // a cache grows: its length is a symbol
  if (!t.dim(1).isConst() || !t.dim(3).isConst()) return 0;
  for (const Node* n : g.users(present)) {
    bool keysOrValues = n->op == "kiln.Attention" && n->inputs[0] != present &&
                        (n->inputs.size() < 4 || n->inputs[3] != present);
    if (!keysOrValues && n->op != "Shape" && n->op != "Size") return 0;
    if (keysOrValues && ir::runsInRuntime(*n)) return 0;
  }
  std::optional<runtime::Shape> capacity = t.capacity(g.dimBounds);
  return capacity ? (*capacity)[kCacheAxis] : 0;
}

// The caches each attention can read in place: its keys and values both caches of equal rows.
// An attention that cannot drops its caches, which may leave another attention unable.
std::map<const Node*, int64_t> inPlaceCaches(const ir::Graph& g) {
  std::map<const Value*, const Node*> concatOf;
  std::map<const Node*, int64_t> caches;
  for (const Node* n : g.nodes()) {
    if (int64_t rows = cacheRows(g, *n); rows > 0) {
      caches[n] = rows;
      concatOf[n->outputs[0]] = n;
    }
  }
  auto rowsOf = [&](const Value* v) -> int64_t {
    auto it = concatOf.find(v);
    return it != concatOf.end() && caches.count(it->second) ? caches.at(it->second) : 0;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const Node* n : g.nodes()) {
      if (n->op != "kiln.Attention") continue;
      int64_t k = rowsOf(n->inputs[1]), v = rowsOf(n->inputs[2]);
      if (k == v) continue;
      for (const Value* kv : {n->inputs[1], n->inputs[2]}) {
        if (concatOf.count(kv)) changed = caches.erase(concatOf.at(kv)) > 0 || changed;
      }
    }
  }
  return caches;
}

}  // namespace

void cacheInPlace(ir::Graph& graph) {
  std::map<const Node*, int64_t> caches = inPlaceCaches(graph);
  std::map<const Value*, int64_t> rowsOf;  // present -> rows, for the attentions
  for (Node* n : std::vector<Node*>(graph.nodes())) {
    auto it = caches.find(n);
    if (it == caches.end()) continue;
    ir::Attrs attrs;
    attrs.set("axis", kCacheAxis);
    attrs.set("rows", it->second);
    Node* append = graph.insertNode(n, "kiln.CacheAppend", graph.uniqueName(n->name + "_append"),
                                    {n->inputs[0], n->inputs[1]},
                                    {graph.uniqueName(n->outputs[0]->name + "_append")}, attrs);
    ir::inferTypes(*append);
    KILN_CHECK(append->outputs[0]->type.dims() == n->outputs[0]->type.dims(), "cache append of ",
               n->name, " changed its type");
    rowsOf[append->outputs[0]] = it->second;
    graph.replaceNode(n, append->outputs[0], append);
  }
  for (Node* n : graph.nodes()) {
    if (n->op != "kiln.Attention") continue;
    auto it = rowsOf.find(n->inputs[1]);
    if (it != rowsOf.end()) n->attrs.set("kv_rows", it->second);
  }
}

}  // namespace kiln::transform
