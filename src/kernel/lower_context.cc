// The state shared by all op lowerings of one fused group.
#include "lower_context.h"

#include <algorithm>
#include <cctype>

#include "index_math.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

std::string sanitize(const std::string& name) {
  std::string s;
  for (char c : name) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (ok) {
      s += c;
    } else if (!s.empty() && s.back() != '_') {
      s += '_';
    }
  }
  while (!s.empty() && s.back() == '_') s.pop_back();
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  return s;
}

template <typename T>
double scalarAt(const runtime::NDArray& a) {
  return static_cast<double>(*a.data<T>());
}

}  // namespace

void unsupported(const ir::Node& node, const std::string& why) {
  std::string opset = node.graph ? strCat(", opset ", node.graph->opsetVersion) : "";
  throw Error(strCat("cannot lower node '", node.name, "' (op '", node.op, "'", opset, "): ", why));
}

LowerContext::LowerContext(const ir::FusedGroup& group, std::string symbol,
                           const ScheduleConfig& config)
    : group_(group),
      symbol_(std::move(symbol)),
      config_(config),
      workload_(workloadKey(group, config.target)) {
  for (const ir::Node* n : group.nodes) {
    for (const ir::Value* v : n->outputs) made_.insert(v);
    for (const ir::Value* v : n->inputs) symbolic_ = symbolic_ || (v && v->type.hasSymbolicDims());
    for (const ir::Value* v : n->outputs) symbolic_ = symbolic_ || v->type.hasSymbolicDims();
  }
  const ir::Graph* graph = group.nodes.empty() ? nullptr : group.nodes.front()->graph;
  if (graph != nullptr) bounds_ = &graph->dimBounds;
}

int64_t LowerContext::knob(const std::string& name, int64_t dflt, int64_t lo, int64_t hi) {
  for (const KnobChoice& k : knobs_) {
    if (k.name == name) return k.value;
  }
  hi = std::max(lo, hi);
  int64_t value = std::clamp(dflt, lo, hi);
  for (const std::string& key : {workload_, std::string("*")}) {
    auto w = config_.knobs.find(key);
    if (w == config_.knobs.end()) continue;
    auto it = w->second.find(name);
    if (it == w->second.end()) continue;
    if (it->second < lo || it->second > hi) {
      throw Error(strCat("schedule: knob '", name, "' of workload ", workload_, " is ", it->second,
                         "; expected ", lo, "..", hi));
    }
    value = it->second;
    break;
  }
  knobs_.push_back({name, value, lo, hi});
  return value;
}

ForKind LowerContext::parallelKind() const {
  return config_.parallel ? ForKind::kParallel : ForKind::kSerial;
}

ForKind LowerContext::vectorKind() const {
  return config_.target.lanes > 1 ? ForKind::kVectorized : ForKind::kSerial;
}

Stmt LowerContext::bindSymbols(const Buffer& param, Stmt body) const {
  for (const auto& [name, v] : symbolVars_) {
    auto it = bounds_->find(name);
    if (it == bounds_->end()) {
      throw Error(strCat("fused group ", group_.name, " is sized in symbol '", name,
                         "', which has no bounds (--dim-bounds)"));
    }
    auto pos = static_cast<int64_t>(std::distance(bounds_->begin(), it));
    body = let(v, load(param, intImm(pos)), std::move(body));
  }
  return body;
}

std::string LowerContext::uniqueName(const std::string& hint) {
  std::string base = sanitize(hint);
  std::string name = base;
  for (int i = 1; names_.count(name) != 0; ++i) name = base + "_" + std::to_string(i);
  names_.insert(name);
  return name;
}

Expr LowerContext::freshVar(const std::string& hint, DataType t) {
  return var(uniqueName(hint), t);
}

Buffer LowerContext::localBuffer(const std::string& hint, DataType t, std::vector<int64_t> shape) {
  return makeBuffer(uniqueName(hint), t, std::move(shape));
}

bool LowerContext::inGroup(const ir::Value* v) const { return made_.count(v) != 0; }

Expr LowerContext::immediate(const ir::Value* v) const {
  if (v == nullptr || !v->isConstant() || v->type.numel() != 1) return nullptr;
  const runtime::NDArray& a = *v->constant;
  DataType t = v->type.dtype;
  if (t == DataType::float32()) return floatImm(scalarAt<float>(a), t);
  if (t == DataType::float64()) return floatImm(scalarAt<double>(a), t);
  if (t == DataType::int64()) return intImm(*a.data<int64_t>(), t);
  if (t == DataType::int32()) return intImm(*a.data<int32_t>(), t);
  if (t == DataType::int8()) return intImm(*a.data<int8_t>(), t);
  if (t == DataType::uint8() || t == DataType::boolean()) return intImm(*a.data<uint8_t>(), t);
  return nullptr;
}

Buffer LowerContext::param(const ir::Value* v) {
  auto it = params_.find(v);
  if (it != params_.end()) return it->second;
  Dims shape = v->type.shape;
  if (v->type.hasSymbolicDims()) shape = placedShape(v);  // its bounds, for the verifier
  Buffer b = makeBuffer(uniqueName(v->name), v->type.dtype, shape);
  params_[v] = b;
  return b;
}

Expr LowerContext::readFlat(const ir::Value* v, Expr flat) {
  KILN_CHECK(!inGroup(v), "readFlat of in-group value ", v->name);
  if (Expr imm = immediate(v)) return imm;
  return load(param(v), std::move(flat));
}

const std::vector<int64_t>& LowerContext::shapeOf(const ir::Value* v) const {
  auto it = shapes_.find(v);
  return it == shapes_.end() ? v->type.shape : it->second;
}

void LowerContext::overrideShape(const ir::Value* v, std::vector<int64_t> shape) {
  shapes_[v] = std::move(shape);
}

Dims LowerContext::placedShape(const ir::Value* v) const {
  static const opdef::DimBounds kNoBounds;
  std::optional<Dims> placed = v->type.capacity(bounds_ ? *bounds_ : kNoBounds);
  if (!placed) {
    throw Error(strCat("value '", v->name, "' is ", v->type.str(),
                       "; a kernel takes sizes in the graph's bounded symbols only"));
  }
  return *placed;
}

int64_t LowerContext::capacityNumel(const ir::Value* v) const {
  return runtime::shapeNumel(placedShape(v));
}

Expr LowerContext::sizeExpr(const opdef::Dim& size) {
  if (size.isConst()) return intImm(size.value());
  KILN_CHECK(!size.isUnknown(), "an unknown size in a kernel of group ", group_.name);
  Expr sum;
  for (const opdef::Dim::Term& t : size.terms()) {
    Expr term = intImm(t.coef);
    for (const std::string& s : t.factors) {
      auto it = symbolVars_.find(s);
      if (it == symbolVars_.end())
        it = symbolVars_.emplace(s, var(uniqueName(s), DataType::int64())).first;
      term = term * it->second;
    }
    sum = sum == nullptr ? term : sum + term;
  }
  return sum;
}

Index LowerContext::extentsOf(const ir::Value* v) {
  auto it = extents_.find(v);
  if (it != extents_.end()) return it->second;
  Index out;
  for (const opdef::Dim& d : v->type.dims()) out.push_back(sizeExpr(d));
  return out;
}

void LowerContext::overrideExtents(const ir::Value* v, Index extents) {
  extents_[v] = std::move(extents);
}

Accessor LowerContext::accessor(const ir::Value* v) {
  if (inGroup(v)) {
    auto it = defined_.find(v);
    KILN_CHECK(it != defined_.end(), "value ", v->name, " is used before it is defined");
    return it->second;
  }
  if (symbolic_) return [this, v](const Index& i) { return readFlat(v, flatten(i, extentsOf(v))); };
  return [this, v](const Index& i) { return readFlat(v, flatten(i, shapeOf(v))); };
}

void LowerContext::define(const ir::Value* v, Accessor a) { defined_[v] = std::move(a); }

void LowerContext::requireData(Expr cond, int32_t status) {
  checks_.push_back(assertThat(std::move(cond), status));
}

Stmt LowerContext::checked(Stmt store) {
  if (checks_.empty()) return store;
  std::vector<Stmt> stmts = std::move(checks_);
  checks_.clear();
  stmts.push_back(std::move(store));
  return seq(std::move(stmts));
}

LoweredKernel LowerContext::finish(Stmt body) {
  LoweredKernel k;
  k.func.name = symbol_;
  for (const ir::Value* v : group_.inputs) {
    auto it = params_.find(v);
    if (it == params_.end()) continue;
    k.func.params.push_back(it->second);
    k.args.push_back(v);
  }
  for (const ir::Value* v : group_.outputs) {
    k.func.params.push_back(param(v));
    k.args.push_back(v);
  }
  KILN_CHECK(k.func.params.size() == params_.size(), "group ", group_.name,
             " reads a value that is not among its inputs");
  if (!symbolVars_.empty()) {
    KILN_CHECK(bounds_ != nullptr, "group ", group_.name, " reads symbols outside a graph");
    Buffer symbols = makeBuffer(uniqueName("symbols"), DataType::int64(),
                                {static_cast<int64_t>(bounds_->size())});
    k.func.params.push_back(symbols);
    k.readsSymbols = true;
    body = bindSymbols(symbols, std::move(body));
  }
  k.func.body = std::move(body);
  k.schedule = {workload_, knobs_};
  // Overrides for this workload must name knobs its lowering has.
  auto w = config_.knobs.find(workload_);
  if (w != config_.knobs.end()) {
    for (const auto& [name, value] : w->second) {
      bool known = false;
      std::string names;
      for (const KnobChoice& c : knobs_) {
        known = known || c.name == name;
        names += (names.empty() ? "" : ", ") + c.name;
      }
      if (!known) {
        throw Error(strCat("schedule: workload ", workload_, " has no knob '", name,
                           "'; its knobs are: ", names.empty() ? "none" : names));
      }
    }
  }
  return k;
}

}  // namespace kiln::kernel
