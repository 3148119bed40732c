// concat-in-place: a Concat whose inputs are contiguous slabs of its output (every dim before
// the axis is 1) need not copy them: the memory plan places each input inside the output's
// storage, where its producer writes it directly, and the Concat's kernel does nothing. This
// pass marks the Concats for which that is safe with the attribute kiln.in_place = 1.
#include <algorithm>

#include "kiln/ir/op_registry.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::Value;

constexpr int64_t kAlignment = 64;  // kernels assume 64-byte aligned tensors

bool eligible(const ir::Graph& g, const Node& concat) {
  if (concat.op != "Concat" || concat.outputs.size() != 1 || concat.inputs.size() < 2) return false;
  const Value* out = concat.outputs[0];
  if (!out->type.isStatic() || ir::runsInRuntime(concat)) return false;
  int64_t rank = out->type.rank();
  int64_t axis = concat.attrs.getInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return false;
  for (int64_t d = 0; d < axis; ++d) {
    if (out->type.shape[static_cast<size_t>(d)] != 1) return false;  // slabs not contiguous
  }
  // The Concat is a group of its own, so no other code of its kernel reads the inputs.
  int groupSize = 0;
  for (const Node* n : g.nodes()) groupSize += n->group == concat.group ? 1 : 0;
  if (concat.group < 0 || groupSize != 1) return false;
  int64_t offset = 0;
  for (const Value* in : concat.inputs) {
    // Each input: computed by another kernel, read only here, placed 64-byte aligned.
    if (in == nullptr || in->producer == nullptr || g.isGraphOutput(in)) return false;
    if (in->producer->op == "Concat") return false;  // it may be aliased itself
    std::vector<Node*> users = g.users(in);
    if (users.size() != 1 || std::count(concat.inputs.begin(), concat.inputs.end(), in) != 1) {
      return false;
    }
    if (offset % kAlignment != 0) return false;
    offset += in->type.nbytes();
  }
  return true;
}

}  // namespace

void concatInPlace(ir::Graph& graph) {
  for (Node* n : graph.nodes()) {
    if (n->op == "Concat" && eligible(graph, *n)) n->attrs.set("kiln.in_place", int64_t{1});
  }
}

}  // namespace kiln::transform
