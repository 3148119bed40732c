// FLOP counts from shapes and attributes: convolutions and matrix products are counted exactly,
// since they are where time goes; the rest is roughly one operation per element.
#include "kiln/ir/flops.h"

#include <algorithm>

namespace kiln::ir {
namespace {

int64_t product(const std::vector<int64_t>& dims, size_t from = 0) {
  int64_t p = 1;
  for (size_t i = from; i < dims.size(); ++i) p *= dims[i];
  return p;
}

int64_t numelOf(const Value* v) { return v && v->type.isStatic() ? v->type.numel() : 0; }

}  // namespace

int64_t nodeFlops(const Node& node) {
  const std::string& op = node.op;
  int64_t out = node.outputs.empty() ? 0 : numelOf(node.outputs[0]);
  auto input = [&](size_t i) -> const Value* {
    return i < node.inputs.size() ? node.inputs[i] : nullptr;
  };
  if (op == "Conv" && input(1)) {
    const Shape& w = input(1)->type.shape;  // [OC, IC/group, k...]
    return 2 * out * (w.size() > 1 ? w[1] : 1) * product(w, 2);
  }
  if (op == "kiln.ConvBlocked") {
    int64_t group = std::max<int64_t>(1, node.attrs.getInt("group", 1));
    int64_t in = node.attrs.getInt("in_channels", 1);
    return 2 * out * (in / group) * product(node.attrs.getInts("kernel_shape", {}));
  }
  if ((op == "MatMul" || op == "kiln.MatMulPacked") && input(0) && !input(0)->type.shape.empty()) {
    return 2 * out * input(0)->type.shape.back();
  }
  if (op == "kiln.Attention" && input(1) && input(1)->type.rank() == 4) {
    int64_t keys = std::max<int64_t>(0, input(1)->type.shape[2]);  // Q Kᵀ, then P V
    return 2 * keys * (numelOf(input(0)) + out);
  }
  if (op == "Gemm" && input(0) && input(0)->type.shape.size() == 2) {
    const Shape& a = input(0)->type.shape;
    return 2 * out * (node.attrs.getInt("transA", 0) ? a[0] : a[1]);
  }
  return std::max(out, numelOf(input(0)));
}

int64_t groupFlops(const FusedGroup& group) {
  int64_t flops = 0;
  for (const Node* n : group.nodes) flops += nodeFlops(*n);
  return flops;
}

}  // namespace kiln::ir
