// The builtin table of op lowerings and the helpers its families share.
#include "compute_table.h"

#include "../index_math.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

std::shared_ptr<const LoweringTable> buildBuiltin() {
  LoweringMap t;
  addElementwiseLowerings(t);
  addInjectiveLowerings(t);
  addConvLowerings(t);
  addPoolLowerings(t);
  addMatmulLowerings(t);
  addAttentionLowerings(t);
  addCacheLowerings(t);
  addSoftmaxLowerings(t);
  addReduceLowerings(t);
  addBatchNormLowerings(t);
  addBlockedLayoutLowerings(t);
  auto table = std::make_shared<LoweringTable>();
  for (auto& [op, lowering] : t) {
    table->add(op, std::make_shared<const OpLowering>(std::move(lowering)));
  }
  return table;
}

}  // namespace

const std::shared_ptr<const LoweringTable>& LoweringTable::builtin() {
  static const auto* kBuiltin = new std::shared_ptr<const LoweringTable>(buildBuiltin());
  return *kBuiltin;
}

void LoweringTable::add(const std::string& op, std::shared_ptr<const OpLowering> lowering) {
  if (table_.count(op)) throw Error(strCat("op '", op, "' already has a lowering"));
  KILN_CHECK(lowering != nullptr, "the lowering of '", op, "' is null");
  table_.emplace(op, std::move(lowering));
}

std::shared_ptr<const OpLowering> elementwiseLowering(const ElementFn& f) {
  return std::make_shared<const OpLowering>(pointwiseOp(f));
}

const OpLowering* LoweringTable::find(const std::string& op) const {
  auto it = table_.find(op);
  return it == table_.end() ? nullptr : it->second.get();
}

std::vector<std::string> LoweringTable::ops() const {
  std::vector<std::string> names;
  names.reserve(table_.size());
  for (const auto& [name, lowering] : table_) names.push_back(name);
  return names;
}

std::vector<std::string> loweredOps() { return LoweringTable::builtin()->ops(); }

bool hasInput(const ir::Node& node, size_t i) {
  return i < node.inputs.size() && node.inputs[i] != nullptr;
}

Expr inputAt(LowerContext& ctx, const ir::Node& node, size_t i, const Index& outIdx) {
  if (!hasInput(node, i)) return nullptr;
  const ir::Value* v = node.inputs[i];
  if (ctx.symbolic()) return ctx.accessor(v)(broadcastIndex(outIdx, ctx.extentsOf(v)));
  return ctx.accessor(v)(broadcastIndex(outIdx, ctx.shapeOf(v)));
}

std::vector<int64_t> constantInts(const ir::Node& node, size_t i, const std::string& what) {
  if (!hasInput(node, i)) unsupported(node, strCat("input '", what, "' is missing"));
  const ir::Value* v = node.inputs[i];
  if (!v->isConstant()) {
    unsupported(node, strCat("input '", what, "' (", v->name,
                             ") must be a compile-time constant; got a computed value"));
  }
  const runtime::NDArray& a = *v->constant;
  std::vector<int64_t> out(static_cast<size_t>(a.numel()));
  DataType t = a.dtype();
  for (size_t k = 0; k < out.size(); ++k) {
    if (t == DataType::int64()) {
      out[k] = a.data<int64_t>()[k];
    } else if (t == DataType::int32()) {
      out[k] = a.data<int32_t>()[k];
    } else {
      unsupported(node,
                  strCat("input '", what, "' has dtype ", t.str(), "; expected int64 or int32"));
    }
  }
  return out;
}

OpLowering pointwiseOp(const std::function<Expr(const ir::Node&, const std::vector<Expr>&)>& f) {
  OpLowering l;
  l.pointwise = true;
  l.compute = [f](LowerContext& ctx, const ir::Node& node) {
    Accessor a = [&ctx, &node, f](const Index& idx) {
      std::vector<Expr> ins;
      for (size_t i = 0; i < node.inputs.size(); ++i) ins.push_back(inputAt(ctx, node, i, idx));
      return f(node, ins);
    };
    return std::vector<Accessor>{a};
  };
  return l;
}

int64_t normalizeAxis(const ir::Node& node, int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max<int64_t>(rank, 1)) {
    unsupported(node, strCat("axis ", axis, " is out of range for rank ", rank));
  }
  return a;
}

}  // namespace kiln::kernel
