// Writes the graph executor's metadata: tensors with their planned places, kernels with their args.
#include "kiln/driver/graph_metadata.h"

#include <map>

#include "kiln/ir/flops.h"
#include "kiln/runtime/graph_executor.h"
#include "kiln/support/error.h"

namespace kiln::driver {
namespace {

Json shapeJson(const runtime::Shape& shape) {
  Json::Array dims;
  for (int64_t d : shape) dims.emplace_back(d);
  return Json(std::move(dims));
}

// "symbols": the graph's symbols in name order, whose positions the sizes' terms refer to.
Json symbolsJson(const opdef::DimBounds& bounds) {
  Json symbols = Json(Json::Array{});
  for (const auto& [name, range] : bounds) {
    Json s;
    s["name"] = name;
    s["min"] = range.min;
    s["max"] = range.max;
    symbols.push(std::move(s));
  }
  return symbols;
}

// "dims": per dim an integer, or its terms, each [coefficient, symbol position...].
Json symbolicDimsJson(const std::vector<opdef::Dim>& dims, const opdef::DimBounds& bounds) {
  Json out = Json(Json::Array{});
  for (const opdef::Dim& d : dims) {
    if (d.isConst()) {
      out.push(Json(d.value()));
      continue;
    }
    KILN_CHECK(!d.isUnknown(), "an unknown size has no terms");
    Json terms = Json(Json::Array{});
    for (const opdef::Dim::Term& t : d.terms()) {
      Json term = Json(Json::Array{});
      term.push(Json(t.coef));
      for (const std::string& f : t.factors) {
        auto it = bounds.find(f);
        KILN_CHECK(it != bounds.end(), "symbol '", f, "' has no bounds");
        term.push(Json(static_cast<int64_t>(std::distance(bounds.begin(), it))));
      }
      terms.push(std::move(term));
    }
    out.push(std::move(terms));
  }
  return out;
}

class TensorTable {
 public:
  TensorTable(const transform::MemoryPlan& plan, const opdef::DimBounds& bounds,
              GraphExecutorModel& out)
      : plan_(plan), bounds_(bounds), out_(out) {}

  int64_t id(const ir::Value* v) {
    if (v == nullptr) return -1;  // an omitted input of a runtime op
    if (auto it = ids_.find(v); it != ids_.end()) return it->second;
    Json t;
    t["name"] = v->name;
    t["shape"] = shapeJson(v->type.shape);
    if (hasSymbols(v->type)) t["dims"] = symbolicDimsJson(v->type.symbolicDims, bounds_);
    t["dtype"] = v->type.dtype.str();
    if (!v->type.isTensor()) {  // a sequence or optional: SHAPE and DTYPE are its tensors'
      t["kind"] = runtime::valueKindName(v->type.kind);
      if (v->type.unranked) t["unranked"] = true;
    }
    if (v->isConstant()) {
      if (v->type.dtype.isString()) {
        throw Error(strCat("constant '", v->name, "' is ", v->type.str(),
                           "; kiln's weights are numeric: strings reach a model as inputs"));
      }
      t["storage"] = -1;
      t["offset"] = 0;
      params_.push(Json(static_cast<int64_t>(tensors_.size())));
      out_.params.emplace_back(v->name, *v->constant);
    } else if (auto slot = plan_.slots.find(v); slot != plan_.slots.end()) {
      t["storage"] = slot->second.storage;
      t["offset"] = slot->second.offset;
      if (!v->type.isStatic()) t["capacity"] = shapeJson(*v->type.capacity(bounds_));
      if (auto cache = plan_.caches.find(v); cache != plan_.caches.end()) {
        t["cache"] =
            Json::Object{{"axis", Json(cache->second.axis)}, {"rows", Json(cache->second.rows)}};
      }
    } else {
      KILN_CHECK(!v->type.isStatic(), "value '", v->name, "' has no place in the plan");
      t["storage"] = runtime::kRunTimeStorage;
      t["offset"] = 0;
    }
    int64_t id = static_cast<int64_t>(tensors_.size());
    tensors_.push(std::move(t));
    ids_[v] = id;
    return id;
  }

  void rename(int64_t id, const std::string& name) {
    tensors_.asArray().at(static_cast<size_t>(id))["name"] = name;
  }

  Json tensors() const { return tensors_; }
  Json params() const { return params_.isNull() ? Json(Json::Array{}) : params_; }

 private:
  // Whether TYPE's dims are all constants and sizes in this graph's symbols (a body's tensors
  // may be sized in its enclosing graph's, and an unknown size is sized by the run alone, as a
  // dim without symbols always was).
  bool hasSymbols(const ir::TensorType& type) const {
    if (!type.hasSymbolicDims()) return false;
    for (const opdef::Dim& d : type.symbolicDims) {
      if (d.isUnknown()) return false;
      for (const std::string& s : d.symbols()) {
        if (bounds_.count(s) == 0) return false;
      }
    }
    return true;
  }

  const transform::MemoryPlan& plan_;
  const opdef::DimBounds& bounds_;
  GraphExecutorModel& out_;
  std::map<const ir::Value*, int64_t> ids_;
  Json tensors_ = Json(Json::Array{});
  Json params_;
};

}  // namespace

Json groupOps(const ir::FusedGroup& group) {
  Json ops = Json(Json::Array{});
  for (const ir::Node* n : group.nodes) ops.push(Json(n->op));
  return ops;
}

GraphExecutorModel buildGraphMetadata(const ir::Graph& graph,
                                      const std::vector<ir::FusedGroup>& groups,
                                      const std::vector<kernel::LoweredKernel>& kernels,
                                      const transform::MemoryPlan& plan,
                                      const std::vector<std::string>& outputNames) {
  KILN_CHECK(groups.size() == kernels.size(), "one kernel per group");
  KILN_CHECK(outputNames.size() == graph.outputs().size(), "one name per output");
  GraphExecutorModel out;
  TensorTable table(plan, graph.dimBounds, out);
  Json inputs = Json(Json::Array{});
  for (const ir::Value* v : graph.inputs()) inputs.push(table.id(v));
  Json calls = Json(Json::Array{});
  for (size_t i = 0; i < kernels.size(); ++i) {
    const kernel::LoweredKernel& k = kernels[i];
    Json args = Json(Json::Array{});
    for (const ir::Value* v : k.args) args.push(table.id(v));
    Json call;
    call["name"] = groups[i].name;
    if (k.runtimeOp) {
      Json op;
      op["op"] = k.runtimeOp->op;
      op["attrs"] = k.runtimeOp->attrs;
      Json dtypes = Json::Array{};
      for (runtime::DataType t : k.runtimeOp->outputDtypes) dtypes.push(Json(t.str()));
      op["output_dtypes"] = std::move(dtypes);
      if (!k.runtimeOp->bodies.isNull()) {
        op["formal_inputs"] = k.runtimeOp->formalInputs;
        op["bodies"] = k.runtimeOp->bodies;
      }
      call["runtime_op"] = std::move(op);
    } else if (k.offload) {
      Json offload;
      offload["backend"] = k.offload->backend;
      offload["payload"] = k.offload->payload;
      call["offload"] = std::move(offload);
    } else {
      call["symbol"] = k.func.name;
      if (k.readsSymbols) call["reads_symbols"] = true;
    }
    call["args"] = std::move(args);
    // A runtime op's args hold every output of its node (-1 for one nothing reads).
    size_t outputs =
        k.runtimeOp ? groups[i].nodes.front()->outputs.size() : groups[i].outputs.size();
    call["num_outputs"] = static_cast<int64_t>(outputs);
    call["ops"] = groupOps(groups[i]);
    call["flops"] = ir::groupFlops(groups[i]);
    calls.push(std::move(call));
  }
  Json outputs = Json(Json::Array{});
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    const ir::Value* v = graph.outputs()[i];
    KILN_CHECK(!v->isConstant(), "graph output '", v->name, "' must be computed by a kernel");
    int64_t id = table.id(v);
    table.rename(id, outputNames[i]);
    outputs.push(id);
  }
  Json storages = Json(Json::Array{});
  for (int64_t size : plan.storageSizes) {
    Json s;
    s["size"] = size;
    storages.push(std::move(s));
  }
  out.metadata["storages"] = std::move(storages);
  if (!graph.dimBounds.empty()) out.metadata["symbols"] = symbolsJson(graph.dimBounds);
  out.metadata["tensors"] = table.tensors();
  out.metadata["inputs"] = std::move(inputs);
  out.metadata["outputs"] = std::move(outputs);
  out.metadata["params"] = table.params();
  out.metadata["kernels"] = std::move(calls);
  return out;
}

ExecutorCode generateGraphExecutor(const LoweredModel& model) {
  GraphExecutorModel graph =
      buildGraphMetadata(model.graph, model.groups, model.kernels, model.plan, model.outputNames);
  ExecutorCode code;
  code.metadata = std::move(graph.metadata);
  code.params = std::move(graph.params);
  return code;
}

}  // namespace kiln::driver
