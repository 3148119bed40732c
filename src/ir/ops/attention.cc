// Type inference of kiln.Attention, the fused scaled dot-product attention fuse-attention makes
// of an exported attention block: softmax(Q Kᵀ · scale, masked) V in one kernel, with the key
// and value heads shared by groups of query heads.
#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "kiln/opdef/broadcast.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

// kiln.Attention(Q [B,H,S,D], K [B,KVH,L,D], V [B,KVH,L,Dv][, mask]) {scale[, mask_fill]}
// -> [B,H,S,Dv]. H is a multiple of KVH: query head h reads key/value head h / (H / KVH). The
// mask broadcasts to [B,H,S,L]: a float mask is added to the scaled scores; a bool mask keeps the
// scores where it is true and sets the others to mask_fill (the value the exporter's Where gave).
// With kv_rows, K and V are caches written in place (cache-in-place): consecutive key/value
// matrices lie kv_rows rows apart, of which the first L are this run's.
void inferAttention(Node& node) {
  const char* names[] = {"Q", "K", "V"};
  for (size_t i = 0; i < 3; ++i) {
    const TensorType& t = inputType(node, i, names[i]);
    requireFloat(node, i);
    if (t.rank() != 4)
      fail(node, names[i], " is ", t.str(), "; expected rank 4 [batch, heads, length, dim]");
  }
  requireSameDtype(node, 0, 1);
  requireSameDtype(node, 0, 2);
  const TensorType &q = node.inputs[0]->type, &k = node.inputs[1]->type, &v = node.inputs[2]->type;
  opdef::Dim h = q.dim(1), kvh = k.dim(1);
  if (!h.isConst() || !kvh.isConst() || kvh.value() < 1 || h.value() % kvh.value() != 0) {
    fail(node, "Q has ", h.str(), " heads and K ", kvh.str(),
         "; expected static head counts, Q's a multiple of K's");
  }
  if (q.dim(3) != k.dim(3) || !opdef::sameSize(k.dim(2), v.dim(2)) || k.dim(1) != v.dim(1) ||
      !opdef::sameSize(q.dim(0), k.dim(0)) || !opdef::sameSize(q.dim(0), v.dim(0))) {
    fail(node, "Q ", q.str(), ", K ", k.str(), " and V ", v.str(),
         " do not agree; expected Q [B,H,S,D], K [B,KVH,L,D], V [B,KVH,L,Dv]");
  }
  if (!node.attrs.has("scale")) fail(node, "the 'scale' attribute is required");
  node.attrs.getFloat("scale", 1.0);  // validates its kind
  if (node.attrs.has("kv_rows") && node.attrs.getInt("kv_rows") < 1) {
    fail(node, "kv_rows is ", node.attrs.getInt("kv_rows"), "; expected at least 1");
  }
  if (hasInput(node, 3)) {
    const TensorType& m = inputType(node, 3, "mask");
    bool isBool = m.dtype == DataType::boolean();
    if (!isBool && m.dtype != q.dtype) {
      fail(node, "mask is ", m.str(), "; expected bool or ", q.dtype.str());
    }
    if (isBool != node.attrs.has("mask_fill")) {
      fail(node, "a bool mask needs the 'mask_fill' attribute and a float mask has none");
    }
    opdef::DimList scores = {q.dim(0), h, q.dim(2), k.dim(2)};
    opdef::DimList joined = opdef::broadcastDims(NodeView(node), scores, m.dims());
    if (joined != scores) {
      fail(node, "mask ", m.str(), " does not broadcast to the scores [", q.dim(0).str(), ",",
           h.str(), ",", q.dim(2).str(), ",", k.dim(2).str(), "]");
    }
  }
  setOutput(node, 0, TensorType::of(q.dtype, {q.dim(0), h, q.dim(2), v.dim(3)}));
}

}  // namespace

void registerAttentionOps(const OpAdder& add) {
  add({.name = "kiln.Attention",
       .opClass = OpClass::kComplex,
       .minInputs = 3,
       .maxInputs = 4,
       .inferTypes = inferAttention,
       .symbolicSizes = true,
       .symbolicKernel = true});
}

}  // namespace kiln::ir::ops
