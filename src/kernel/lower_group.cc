// Lowering a fused group: defines every value's elements as expressions, then emits either one
// loop nest per output (pointwise and injective groups) or the anchor's loops with the epilogue
// applied to each element before its single store.
#include <algorithm>

#include "compute/compute_table.h"
#include "index_math.h"
#include "kiln/kernel/lower.h"
#include "kiln/support/error.h"
#include "kiln/tir/verifier.h"
#include "loop_builder.h"
#include "lower_context.h"
#include "lower_offload.h"
#include "lower_runtime_op.h"

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

Dims padTo(const Dims& shape, size_t rank) {
  Dims out(rank - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

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
  const Dims& out = g.outputs[0]->type.shape;
  size_t rank = out.size();
  std::vector<Dims> padded;
  for (const ir::Value* v : values) {
    if (v->type.shape.size() > rank) return;
    padded.push_back(padTo(v->type.shape, rank));
    for (size_t d = 0; d < rank; ++d) {
      if (padded.back()[d] != 1 && padded.back()[d] != out[d]) return;
    }
  }
  // Groups of output dims that stay together; dims of extent 1 are dropped.
  std::vector<std::vector<size_t>> groups;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    bool merge = !groups.empty();
    if (merge) {
      size_t prev = groups.back().back();
      for (const Dims& p : padded) merge = merge && ((p[prev] == 1) == (p[d] == 1));
    }
    if (merge) {
      groups.back().push_back(d);
    } else {
      groups.push_back({d});
    }
  }
  for (size_t k = 0; k < values.size(); ++k) {
    Dims s;
    for (const auto& grp : groups) {
      int64_t e = 1;
      for (size_t d : grp) e *= padded[k][d];
      s.push_back(e);
    }
    ctx.overrideShape(values[k], s);
  }
}

bool allPointwise(const LowerContext& ctx, const ir::FusedGroup& g) {
  return std::all_of(g.nodes.begin(), g.nodes.end(),
                     [&ctx](const ir::Node* n) { return loweringOf(ctx, *n).pointwise; });
}

Stmt storeAll(LowerContext& ctx, const ir::Value* v) {
  const Dims& shape = ctx.shapeOf(v);
  Accessor a = ctx.accessor(v);
  Buffer out = ctx.param(v);
  return elementwiseNest(ctx, shape, [&](const Index& i) {
    Expr value = a(i);
    KILN_CHECK(value->dtype == out->dtype, "value ", v->name, " computes ", value->dtype.str(),
               " but is typed ", out->dtype.str());
    return ctx.checked(store(out, flatten(i, shape), value));
  });
}

Stmt lowerComputed(LowerContext& ctx) {
  const ir::FusedGroup& g = ctx.group();
  const ir::Node& first = *g.nodes.front();
  if (g.nodes.size() == 1 && loweringOf(ctx, first).flatCopy && !ctx.inGroup(first.inputs[0]) &&
      g.outputs.size() == 1 && g.outputs[0] == first.outputs[0] &&
      first.outputs[0]->type.numel() == first.inputs[0]->type.numel()) {
    const ir::Value* in = first.inputs[0];
    Buffer out = ctx.param(g.outputs[0]);
    return elementwiseNest(ctx, {out->numel()}, [&](const Index& i) {
      return store(out, i[0], ctx.readFlat(in, i[0]));
    });
  }
  if (allPointwise(ctx, g)) collapseDims(ctx);
  for (const ir::Node* n : g.nodes) defineOutputs(ctx, *n);
  std::vector<Stmt> nests;
  for (const ir::Value* v : g.outputs) nests.push_back(storeAll(ctx, v));
  return seq(nests);
}

Stmt lowerAnchored(LowerContext& ctx, const ir::Node& anchor) {
  const ir::FusedGroup& g = ctx.group();
  const ir::Value* anchorOut = anchor.outputs[0];
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
      if (v->type.shape != anchorOut->type.shape) {
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
      stores.push_back(store(out, flatten(i, v->type.shape), x));
    }
    *slot = nullptr;
    return ctx.checked(seq(stores));
  };
  return loweringOf(ctx, anchor).emit(ctx, anchor, storeFn);
}

}  // namespace

LoweredKernel lowerGroup(const FusedGroup& group, const std::string& symbol,
                         const ScheduleConfig& config) {
  KILN_CHECK(!group.nodes.empty(), "fused group ", group.name, " has no nodes");
  KILN_CHECK(!group.outputs.empty(), "fused group ", group.name, " has no outputs");
  if (group.nodes.front()->op == "kiln.Offload") return lowerOffload(group, symbol);
  const LoweringTable& lowerings = config.lowerings ? *config.lowerings : *LoweringTable::builtin();
  if (runsInRuntime(group, lowerings)) return lowerRuntimeOp(group, symbol);
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
