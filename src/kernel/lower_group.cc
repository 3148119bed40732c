// Lowering a fused group: defines every value's elements as expressions, then emits either one
// loop nest per output (pointwise and injective groups) or the anchor's loops with the epilogue
// applied to each element before its single store.
#include <algorithm>

#include "compute/compute_table.h"
#include "index_math.h"
#include "kiln/ir/op_registry.h"
#include "kiln/kernel/lower.h"
#include "kiln/opdef/op_view.h"
#include "kiln/support/error.h"
#include "kiln/tir/verifier.h"
#include "loop_builder.h"
#include "lower_context.h"
#include "lower_offload.h"
#include "lower_runtime_op.h"
#include "lower_samples.h"

namespace kiln::kernel {
namespace {

const OpLowering& loweringOf(const LowerContext& ctx, const ir::Node& node) {
  const LoweringTable& table =
      ctx.config().lowerings ? *ctx.config().lowerings : *LoweringTable::builtin();
  const OpLowering* l = table.find(node.op);
  if (l == nullptr) unsupported(node, "kiln has no kernel for this op");
  return *l;
}

void defineOutputs(LowerContext& ctx, const ir::Node& node) {
  std::vector<Accessor> outs = loweringOf(ctx, node).compute(ctx, node);
  for (size_t i = 0; i < node.outputs.size() && i < outs.size(); ++i) {
    if (outs[i]) ctx.define(node.outputs[i], outs[i]);
  }
}

opdef::DimList padTo(const opdef::DimList& dims, size_t rank) {
  opdef::DimList out(rank - dims.size(), opdef::Dim(1));
  out.insert(out.end(), dims.begin(), dims.end());
  return out;
}

bool isOne(const opdef::Dim& d) { return d.isConst() && d.value() == 1; }

// Collapses adjacent dimensions along which every value of a pointwise group is either complete
// or broadcast, so that e.g. a same-shape chain becomes one flat loop.
void collapseDims(LowerContext& ctx) {
  const ir::FusedGroup& g = ctx.group();
  if (g.outputs.size() != 1) return;
  std::vector<const ir::Value*> values;
  for (const ir::Node* n : g.nodes) {
    for (const ir::Value* v : n->inputs) {
      if (v != nullptr) values.push_back(v);
    }
    for (const ir::Value* v : n->outputs) values.push_back(v);
  }
  const opdef::DimList out = g.outputs[0]->type.dims();
  size_t rank = out.size();
  std::vector<opdef::DimList> padded;
  for (const ir::Value* v : values) {
    if (v->type.shape.size() > rank) return;
    padded.push_back(padTo(v->type.dims(), rank));
    for (size_t d = 0; d < rank; ++d) {
      if (!isOne(padded.back()[d]) && padded.back()[d] != out[d]) return;
    }
  }
  // Groups of output dims that stay together; dims of extent 1 are dropped.
  std::vector<std::vector<size_t>> groups;
  for (size_t d = 0; d < rank; ++d) {
    if (isOne(out[d])) continue;
    bool merge = !groups.empty();
    if (merge) {
      size_t prev = groups.back().back();
      for (const opdef::DimList& p : padded) merge = merge && (isOne(p[prev]) == isOne(p[d]));
    }
    if (merge) {
      groups.back().push_back(d);
    } else {
      groups.push_back({d});
    }
  }
  for (size_t k = 0; k < values.size(); ++k) {
    opdef::DimList s;
    for (const auto& grp : groups) {
      opdef::Dim e(1);
      for (size_t d : grp) e = e * padded[k][d];
      s.push_back(e);
    }
    if (ctx.symbolic()) {
      Index extents;
      for (const opdef::Dim& d : s) extents.push_back(ctx.sizeExpr(d));
      ctx.overrideExtents(values[k], extents);
    } else {
      ctx.overrideShape(values[k], opdef::knownDims(s));
    }
  }
}

// Whether NODE's output holds as many elements as its input (in symbols: the same polynomial).
bool sameNumel(const LowerContext& ctx, const ir::Node& node) {
  const ir::TensorType& in = node.inputs[0]->type;
  const ir::TensorType& out = node.outputs[0]->type;
  if (!ctx.symbolic()) return in.numel() == out.numel();
  opdef::Dim a(1), b(1);
  for (const opdef::Dim& d : in.dims()) a = a * d;
  for (const opdef::Dim& d : out.dims()) b = b * d;
  return a == b;
}

bool allPointwise(const LowerContext& ctx, const ir::FusedGroup& g) {
  return std::all_of(g.nodes.begin(), g.nodes.end(),
                     [&ctx](const ir::Node* n) { return loweringOf(ctx, *n).pointwise; });
}

Stmt storeAll(LowerContext& ctx, const ir::Value* v) {
  Accessor a = ctx.accessor(v);
  Buffer out = ctx.param(v);
  auto storeAt = [&](const Index& i, const Expr& flat) {
    Expr value = a(i);
    KILN_CHECK(value->dtype == out->dtype, "value ", v->name, " computes ", value->dtype.str(),
               " but is typed ", out->dtype.str());
    return ctx.checked(store(out, flat, value));
  };
  if (ctx.symbolic()) {
    Index extents = ctx.extentsOf(v);
    return elementwiseNest(ctx, extents, ctx.capacityNumel(v),
                           [&](const Index& i) { return storeAt(i, flatten(i, extents)); });
  }
  const Dims& shape = ctx.shapeOf(v);
  return elementwiseNest(ctx, shape, [&](const Index& i) { return storeAt(i, flatten(i, shape)); });
}

// A group on sizes in symbols: kiln's kernels read them for pointwise ops, flat copies and the
// compute ops whose reads take them (OpLowering::symbolicSizes).
void requireSymbolicKernels(const LowerContext& ctx) {
  const ir::FusedGroup& g = ctx.group();
  for (const ir::Node* n : g.nodes) {
    const OpLowering& l = loweringOf(ctx, *n);
    if (l.pointwise || (l.flatCopy && g.nodes.size() == 1)) continue;
    if (l.symbolicSizes && l.compute) continue;
    unsupported(*n, strCat("its sizes are in symbols (", n->outputs[0]->type.str(),
                           "), and kiln's kernel for it takes static sizes only"));
  }
}

Stmt lowerComputed(LowerContext& ctx) {
  const ir::FusedGroup& g = ctx.group();
  const ir::Node& first = *g.nodes.front();
  if (ctx.symbolic()) requireSymbolicKernels(ctx);
  if (g.nodes.size() == 1 && loweringOf(ctx, first).flatCopy && !ctx.inGroup(first.inputs[0]) &&
      g.outputs.size() == 1 && g.outputs[0] == first.outputs[0] && sameNumel(ctx, first)) {
    const ir::Value* in = first.inputs[0];
    Buffer out = ctx.param(g.outputs[0]);
    auto copy = [&](const Index& i) { return store(out, i[0], ctx.readFlat(in, i[0])); };
    if (ctx.symbolic()) {
      Index n = {productOf(ctx.extentsOf(g.outputs[0]))};
      return elementwiseNest(ctx, n, ctx.capacityNumel(g.outputs[0]), copy);
    }
    return elementwiseNest(ctx, {out->numel()}, copy);
  }
  if (allPointwise(ctx, g)) collapseDims(ctx);
  for (const ir::Node* n : g.nodes) defineOutputs(ctx, *n);
  std::vector<Stmt> nests;
  for (const ir::Value* v : g.outputs) nests.push_back(storeAll(ctx, v));
  return seq(nests);
}

// An anchored group on sizes in symbols: an anchor whose emit takes them, then pointwise ops.
void requireSymbolicAnchor(const LowerContext& ctx, const ir::Node& anchor) {
  const ir::FusedGroup& g = ctx.group();
  for (const ir::Node* n : g.nodes) {
    const OpLowering& l = loweringOf(ctx, *n);
    if (n == &anchor ? l.symbolicSizes : l.pointwise) continue;
    unsupported(*n, strCat("its sizes are in symbols (", n->outputs[0]->type.str(),
                           "), and kiln's kernel for it takes static sizes only"));
  }
}

Stmt lowerAnchored(LowerContext& ctx, const ir::Node& anchor) {
  const ir::FusedGroup& g = ctx.group();
  const ir::Value* anchorOut = anchor.outputs[0];
  if (ctx.symbolic()) requireSymbolicAnchor(ctx, anchor);
  // The anchor's value at the element being stored; set while the epilogue is expanded.
  auto slot = std::make_shared<Expr>();
  ctx.define(anchorOut, [slot](const Index&) {
    KILN_CHECK(*slot != nullptr, "anchor value read outside its store");
    return *slot;
  });
  for (size_t k = 1; k < g.nodes.size(); ++k) {
    const ir::Node& n = *g.nodes[k];
    if (loweringOf(ctx, n).emit) {
      unsupported(n, strCat("it follows anchor '", anchor.name, "' in fused group ", g.name,
                            "; a group holds at most one anchor, first"));
    }
    for (const ir::Value* v : n.outputs) {
      if (v->type.dims() != anchorOut->type.dims()) {
        unsupported(n,
                    strCat("its output ", v->type.str(), " differs from the shape of anchor '",
                           anchor.name, "' (", anchorOut->type.str(), ") in fused group ", g.name));
      }
    }
    defineOutputs(ctx, n);
  }
  for (const ir::Value* v : g.outputs) {
    if (v->producer == &anchor && v != anchorOut) {
      unsupported(anchor, strCat("output ", v->outputIndex, " (", v->name, ") is not supported"));
    }
  }
  StoreFn storeFn = [&ctx, &g, slot](const Index& i, Expr value) {
    *slot = std::move(value);
    std::vector<Stmt> stores;
    for (const ir::Value* v : g.outputs) {
      Buffer out = ctx.param(v);
      Expr x = ctx.accessor(v)(i);
      KILN_CHECK(withLanes(x->dtype, 1) == out->dtype, "value ", v->name, " computes ",
                 x->dtype.str(), " but is typed ", out->dtype.str());
      Expr flat = ctx.symbolic() ? flatten(i, ctx.extentsOf(v)) : flatten(i, v->type.shape);
      stores.push_back(store(out, flat, x));
    }
    *slot = nullptr;
    return ctx.checked(seq(stores));
  };
  return loweringOf(ctx, anchor).emit(ctx, anchor, storeFn);
}

// A node that only computes sizes (ir::computesSizesOnly): each element of its output written from
// the symbols' values, no input read.
Stmt lowerSizes(LowerContext& ctx, const ir::Value* out) {
  Buffer buf = ctx.param(out);
  std::vector<Stmt> stores;
  const opdef::DimList& sizes = *out->symbolicValue;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Expr size = cast(buf->dtype, ctx.sizeExpr(sizes[i]));
    stores.push_back(store(buf, intImm(static_cast<int64_t>(i)), size));
  }
  return seq(stores);
}

}  // namespace

LoweredKernel lowerGroup(const FusedGroup& group, const std::string& symbol,
                         const ScheduleConfig& config) {
  KILN_CHECK(!group.nodes.empty(), "fused group ", group.name, " has no nodes");
  KILN_CHECK(!group.outputs.empty(), "fused group ", group.name, " has no outputs");
  if (group.nodes.front()->op == "kiln.Offload") return lowerOffload(group, symbol);
  const LoweringTable& lowerings = config.lowerings ? *config.lowerings : *LoweringTable::builtin();
  const ir::Node& first = *group.nodes.front();
  if (group.nodes.size() == 1 && ir::computesSizesOnly(first)) {
    LowerContext ctx(group, symbol, config);
    LoweredKernel kernel = ctx.finish(lowerSizes(ctx, first.outputs[0]));
    tir::verifyOrThrow(kernel.func);
    return kernel;
  }
  if (runsInRuntime(group, lowerings)) return lowerRuntimeOp(group, symbol);
  if (lowersPerSample(group, lowerings)) return lowerPerSample(group, symbol, config);
  LowerContext ctx(group, symbol, config);
  const ir::Node* anchor = nullptr;
  for (const ir::Node* n : group.nodes) {
    if (loweringOf(ctx, *n).emit && anchor == nullptr) anchor = n;
  }
  if (anchor != nullptr && anchor != group.nodes.front()) {
    unsupported(*anchor, strCat("it is not the first node of fused group ", group.name,
                                "; an anchor must come first"));
  }
  Stmt body = anchor != nullptr ? lowerAnchored(ctx, *anchor) : lowerComputed(ctx);
  LoweredKernel kernel = ctx.finish(body);
  tir::verifyOrThrow(kernel.func);
  checkLocalBuffers(kernel.func);
  return kernel;
}

}  // namespace kiln::kernel
