// decompose-conv: a convolution over three or more spatial dims becomes convolutions over one dim
// fewer, one per tap of the kernel's leading spatial dim, summed: the compiled 2-D kernels (blocked
// layout, micro-kernels, fused sums) then run video and volumetric models. The pass repeats until
// no such convolution is left.
#include <numeric>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/window.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using ir::Node;
using ir::Value;
using runtime::DataType;
using runtime::NDArray;
using runtime::Shape;

bool decomposable(const Node& n) {
  if (n.op != "Conv" || n.inputs.size() < 2 || n.inputs[1] == nullptr) return false;
  const ir::TensorType& x = n.inputs[0]->type;
  return x.isTensor() && x.rank() >= 5 && runtime::isStaticShape(x.shape) &&
         (x.dtype == DataType::float32() || x.dtype == DataType::float64()) &&
         n.inputs[1]->isConstant() &&
         (n.inputs.size() < 3 || n.inputs[2] == nullptr || n.inputs[2]->isConstant());
}

// Rewrites one node at a time through small helpers that add a node before the conv.
struct Rewriter {
  ir::Graph& graph;
  Node* conv;

  Value* add(const std::string& op, std::vector<Value*> inputs, ir::Attrs attrs = {}) {
    std::string name = graph.uniqueName(strCat(conv->name, "/", op));
    Node* n = graph.insertNode(conv, op, name, std::move(inputs), {graph.uniqueName(name)},
                               std::move(attrs));
    ir::inferTypes(*n);
    return n->outputs[0];
  }

  Value* constantInts(const std::string& what, const std::vector<int64_t>& v) {
    NDArray a = NDArray::fromBytes({static_cast<int64_t>(v.size())}, DataType::int64(), v.data(),
                                   v.size() * sizeof(int64_t));
    return graph.addConstant(graph.uniqueName(strCat(conv->name, "/", what)), std::move(a));
  }

  Value* transposeDims12(Value* x) {
    std::vector<int64_t> perm(x->type.shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[1], perm[2]);
    ir::Attrs a;
    a.set("perm", perm);
    return add("Transpose", {x}, a);
  }

  Value* reshape(Value* x, const Shape& shape) {
    return add("Reshape", {x, constantInts("shape", shape)});
  }

  // Tap K of the weights along the leading spatial dim: [OC, C/g, KS...].
  Value* weightTap(const Value* w, int64_t k) {
    const Shape& ws = w->type.shape;
    Shape tap = {ws[0], ws[1]};
    tap.insert(tap.end(), ws.begin() + 3, ws.end());
    int64_t inner = runtime::shapeNumel(Shape(ws.begin() + 3, ws.end()));
    size_t bytes = w->type.dtype.bytes();
    NDArray out = NDArray::empty(tap, w->type.dtype);
    const auto* src = static_cast<const char*>(w->constant->data());
    auto* dst = static_cast<char*>(out.data());
    for (int64_t oc = 0; oc < ws[0] * ws[1]; ++oc) {
      std::copy_n(src + static_cast<size_t>((oc * ws[2] + k) * inner) * bytes,
                  static_cast<size_t>(inner) * bytes,
                  dst + static_cast<size_t>(oc * inner) * bytes);
    }
    return graph.addConstant(graph.uniqueName(strCat(w->name, "_tap", k)), std::move(out));
  }

  void run() {
    Value* x = conv->inputs[0];
    const Value* w = conv->inputs[1];
    Value* bias = conv->inputs.size() > 2 ? conv->inputs[2] : nullptr;
    const Shape& xs = x->type.shape;
    const Shape& ws = w->type.shape;
    const Shape& ys = conv->outputs[0]->type.shape;
    ir::WindowGeometry g =
        ir::resolveWindow(*conv, Shape(xs.begin() + 2, xs.end()), Shape(ws.begin() + 2, ws.end()));
    size_t rank = xs.size();
    // [N, C, D, S...] -> padded along D -> [N, D', C, S...]
    if (g.padsBegin[0] > 0 || g.padsEnd[0] > 0) {
      std::vector<int64_t> pads(2 * rank, 0);
      pads[2] = g.padsBegin[0];
      pads[2 + rank] = g.padsEnd[0];
      ir::Attrs a;
      if (graph.opsetVersion < 11) a.set("pads", pads);
      x = graph.opsetVersion < 11 ? add("Pad", {x}, a)
                                  : add("Pad", {x, constantInts("pads", pads)});
    }
    Value* across = transposeDims12(x);
    int64_t n = xs[0], od = ys[2];
    Shape inner(across->type.shape.begin() + 2, across->type.shape.end());  // C, S...
    Shape batched = {n * od};
    batched.insert(batched.end(), inner.begin(), inner.end());
    ir::Attrs convAttrs;
    size_t m = g.kernel.size() - 1;
    auto rest = [&](const std::vector<int64_t>& v, size_t from) {
      return std::vector<int64_t>(v.begin() + static_cast<std::ptrdiff_t>(from),
                                  v.begin() + static_cast<std::ptrdiff_t>(from + m));
    };
    std::vector<int64_t> pads = rest(g.padsBegin, 1), end = rest(g.padsEnd, 1);
    pads.insert(pads.end(), end.begin(), end.end());
    convAttrs.set("kernel_shape", rest(g.kernel, 1));
    convAttrs.set("strides", rest(g.strides, 1));
    convAttrs.set("dilations", rest(g.dilations, 1));
    convAttrs.set("pads", pads);
    convAttrs.set("group", conv->attrs.getInt("group", 1));
    Value* sum = nullptr;
    for (int64_t k = 0; k < g.kernel[0]; ++k) {
      std::vector<int64_t> depths;
      for (int64_t o = 0; o < od; ++o) depths.push_back(o * g.strides[0] + k * g.dilations[0]);
      ir::Attrs gather;
      gather.set("axis", int64_t{1});
      Value* taps = add("Gather", {across, constantInts("depths", depths)}, gather);
      std::vector<Value*> inputs = {reshape(taps, batched), weightTap(w, k)};
      if (k == 0 && bias != nullptr) inputs.push_back(bias);
      Value* partial = add("Conv", inputs, convAttrs);
      sum = sum == nullptr ? partial : add("Add", {sum, partial});
    }
    const Shape& ps = sum->type.shape;  // [N * OD, OC, OS...]
    Shape split = {n, od};
    split.insert(split.end(), ps.begin() + 1, ps.end());
    Value* out = transposeDims12(reshape(sum, split));
    graph.replaceNode(conv, out, out->producer);
  }
};

}  // namespace

void decomposeConv(ir::Graph& graph) {
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<Node*> nodes = graph.nodes();
    for (Node* n : nodes) {
      if (!decomposable(*n)) continue;
      Rewriter{graph, n}.run();
      changed = true;
    }
  }
  graph.removeDeadCode();
}

}  // namespace kiln::transform
