// Per-sample lowering of a group on a symbolic batch: clone the group at batch 1, lower the clone
// (static sizes), then loop over the samples with every batched buffer offset by one sample.
#include "lower_samples.h"

#include <deque>
#include <map>
#include <optional>

#include "compute/compute_table.h"
#include "kiln/ir/per_sample.h"
#include "kiln/support/error.h"
#include "kiln/tir/functor.h"
#include "kiln/tir/verifier.h"
#include "lower_context.h"

namespace kiln::kernel {
namespace {

// Whether V is the batch BATCH: a symbolic batch of that size.
bool isBatch(const ir::Value* v, const opdef::Dim& batch, const opdef::DimBounds& bounds) {
  return v != nullptr && ir::isSymbolicBatch(v->type, bounds) && v->type.dim(0) == batch;
}

// Whether pointwise NODE keeps the samples apart on BATCH: its outputs are the batch, its inputs
// the batch at the outputs' rank or static ones broadcast along dim 0.
bool pointwiseOnBatch(const ir::Node& node, const opdef::Dim& batch,
                      const opdef::DimBounds& bounds) {
  for (const ir::Value* out : node.outputs) {
    if (out != nullptr && !isBatch(out, batch, bounds)) return false;
  }
  int rank = node.outputs[0]->type.rank();
  for (const ir::Value* in : node.inputs) {
    if (in == nullptr) continue;
    if (in->type.isStatic()) {
      if (in->type.rank() == rank && in->type.shape[0] != 1) return false;
      continue;
    }
    if (!isBatch(in, batch, bounds) || in->type.rank() != rank) return false;
  }
  return true;
}

// The batch of GROUP when every node keeps the samples apart on it (per-sample ops and pointwise
// ones), nullopt otherwise. NEEDED: some per-sample op's kernel takes static sizes only.
std::optional<opdef::Dim> groupBatch(const FusedGroup& group, const LoweringTable& lowerings,
                                     bool& needed) {
  const ir::Graph* graph = group.nodes.front()->graph;
  if (graph == nullptr || graph->dimBounds.empty()) return std::nullopt;
  std::optional<opdef::Dim> batch;
  for (const ir::Node* n : group.nodes) {
    std::optional<opdef::Dim> b = ir::symbolicBatch(*n);
    if (b && batch && !(*b == *batch)) return std::nullopt;
    if (b) batch = b;
  }
  if (!batch) return std::nullopt;
  for (const ir::Node* n : group.nodes) {
    const OpLowering* l = lowerings.find(n->op);
    if (l == nullptr) return std::nullopt;
    if (ir::symbolicBatch(*n)) {
      needed = needed || !l->symbolicSizes;
    } else if (!l->pointwise || !pointwiseOnBatch(*n, *batch, graph->dimBounds)) {
      return std::nullopt;
    }
  }
  return batch;
}

// GROUP at one sample: its batched values and its nodes cloned, the batch made 1.
class SampleGroup {
 public:
  explicit SampleGroup(const FusedGroup& group) {
    one_.name = group.name;
    for (const ir::Value* v : group.inputs) one_.inputs.push_back(cloneInput(v));
    for (const ir::Node* n : group.nodes) one_.nodes.push_back(cloneNode(*n));
    for (const ir::Value* v : group.outputs) one_.outputs.push_back(clones_.at(v));
  }
  const FusedGroup& group() const { return one_; }
  // The value of the batched group a clone stands for.
  const ir::Value* original(const ir::Value* v) const {
    auto it = originals_.find(v);
    return it == originals_.end() ? v : it->second;
  }

 private:
  ir::Value* clone(const ir::Value* v, ir::Node* producer) {
    ir::Value& c = values_.emplace_back();
    c.name = v->name;
    c.type = v->type.isStatic() ? v->type : ir::sampleType(v->type);
    c.producer = producer;
    c.outputIndex = v->outputIndex;
    clones_[v] = &c;
    originals_[&c] = v;
    return &c;
  }
  const ir::Value* cloneInput(const ir::Value* v) {
    if (v->type.isStatic()) return v;  // read whole by every sample
    return clone(v, nullptr);
  }
  const ir::Node* cloneNode(const ir::Node& n) {
    ir::Node& c = nodes_.emplace_back();
    c.op = n.op;
    c.name = n.name;
    c.attrs = n.attrs;
    c.group = n.group;
    c.graph = n.graph;
    for (ir::Value* in : n.inputs) {
      auto it = in != nullptr ? clones_.find(in) : clones_.end();
      c.inputs.push_back(it != clones_.end() ? it->second : in);
    }
    for (const ir::Value* out : n.outputs) c.outputs.push_back(clone(out, &c));
    return &c;
  }

  FusedGroup one_;
  std::deque<ir::Value> values_;
  std::deque<ir::Node> nodes_;
  std::map<const ir::Value*, ir::Value*> clones_;
  std::map<const ir::Value*, const ir::Value*> originals_;
};

// Every name F binds (variables and buffers), so the loop around it binds none of them again.
class NameCollector : public tir::Visitor {
 public:
  std::vector<std::string> names;
  void collect(const tir::PrimFunc& f) {
    for (const tir::Buffer& b : f.params) names.push_back(b->name);
    visitStmt(f.body);
  }

 protected:
  void visitVar(const tir::ExprNode& e) override { names.push_back(e.name); }
  void visitAllocate(const tir::StmtNode& s) override {
    names.push_back(s.buffer->name);
    tir::Visitor::visitAllocate(s);
  }
};

// The one-sample kernel's accesses moved to the batched buffers: each parameter replaced by the
// batch's, its indices offset by the sample's first element where it is batched.
class SampleOffsets : public tir::Mutator {
 public:
  struct Target {
    tir::Buffer buffer;
    Expr offset;  // null for a buffer every sample reads whole
  };
  std::map<const tir::BufferNode*, Target> targets;

 protected:
  Expr mutateLoad(const Expr& e) override {
    Expr index = mutateExpr(e->index);
    auto it = targets.find(e->buffer.get());
    if (it == targets.end()) return index == e->index ? e : tir::load(e->buffer, index);
    return tir::load(it->second.buffer, offset(index, it->second.offset));
  }
  Stmt mutateStore(const Stmt& s) override {
    Expr index = mutateExpr(s->index), value = mutateExpr(s->value);
    auto it = targets.find(s->buffer.get());
    if (it == targets.end()) {
      return index == s->index && value == s->value ? s : tir::store(s->buffer, index, value);
    }
    return tir::store(it->second.buffer, offset(index, it->second.offset), value);
  }

 private:
  static Expr offset(const Expr& index, const Expr& by) {
    if (by == nullptr) return index;
    int lanes = index->dtype.lanes;
    if (lanes == 1) return index + by;
    if (index->kind == tir::ExprKind::kRamp) return tir::ramp(index->a + by, index->b, lanes);
    return index + tir::broadcast(by, lanes);
  }
};

}  // namespace

bool lowersPerSample(const FusedGroup& group, const LoweringTable& lowerings) {
  bool needed = false;
  return groupBatch(group, lowerings, needed).has_value() && needed;
}

LoweredKernel lowerPerSample(const FusedGroup& group, const std::string& symbol,
                             const ScheduleConfig& config) {
  const LoweringTable& lowerings = config.lowerings ? *config.lowerings : *LoweringTable::builtin();
  bool needed = false;
  std::optional<opdef::Dim> batch = groupBatch(group, lowerings, needed);
  KILN_CHECK(batch && needed, "group ", group.name, " is not lowered per sample");
  SampleGroup one(group);
  LoweredKernel inner = lowerGroup(one.group(), symbol, config);
  KILN_CHECK(!inner.runtimeOp && !inner.offload && !inner.object && !inner.readsSymbols, "group ",
             group.name, " at one sample is not a static kernel of kiln's");

  LowerContext ctx(group, symbol, config);
  NameCollector names;
  names.collect(inner.func);
  auto reserve = ctx.names();
  for (const std::string& name : names.names) reserve(name);
  Expr sample = ctx.freshVar("sample");
  SampleOffsets offsets;
  for (size_t i = 0; i < inner.args.size(); ++i) {
    const ir::Value* v = one.original(inner.args[i]);
    Expr offset;
    if (!v->type.isStatic()) offset = sample * intImm(ir::sampleType(v->type).numel());
    offsets.targets[inner.func.params[i].get()] = {ctx.param(v), offset};
  }
  Stmt body = tir::forLoop(sample, intImm(0), ctx.sizeExpr(*batch), ForKind::kSerial,
                           offsets.mutateStmt(inner.func.body));
  LoweredKernel kernel = ctx.finish(body);
  kernel.schedule = inner.schedule;  // the knobs are the one-sample kernel's
  tir::verifyOrThrow(kernel.func);
  return kernel;
}

}  // namespace kiln::kernel
