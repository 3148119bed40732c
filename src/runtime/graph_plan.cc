// Reads and checks graph executor metadata once per model: the metadata comes from a file, so
// every id, offset and size is validated before an executor trusts it with raw pointers.
#include "graph_plan.h"

#include <limits>
#include <set>

#include "kiln/support/base64.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

namespace {

std::string joinNames(const GraphPlan& plan, const std::vector<int64_t>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size() && i < 32; ++i) {
    s += (i ? ", " : "") + plan.tensors[ids[i]].name;
  }
  if (ids.size() > 32) s += strCat(", ... (", ids.size(), " in all)");
  return s.empty() ? "none" : s;
}

int64_t indexByName(const GraphPlan& plan, const std::vector<int64_t>& ids,
                    const std::string& name) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (plan.tensors[ids[i]].name == name) return static_cast<int64_t>(i);
  }
  return -1;
}

// Parses one metadata section, tracking the field being read so errors can name it.
class PlanReader {
 public:
  PlanReader(const Json& meta, GraphPlan& plan, OffloadRuntimes* offloads)
      : meta_(meta), plan_(plan), offloads_(offloads) {}

  void read() {
    readStorages();
    if (meta_.contains("symbols")) {
      where_ = "symbols";
      plan_.symbols = readSymbols(meta_.at("symbols"));
    }
    readTensors();
    plan_.inputs = readIds("inputs");
    plan_.outputs = readIds("outputs");
    plan_.params = readIds("params");
    checkRoles();
    checkSymbolsBound();
    readKernels();
  }

  const std::string& where() const { return where_; }

  // Makes the offloaded kernels ready, once the metadata is known to be valid.
  void createOffloads(OffloadRuntimes* offloads) {
    for (const OffloadSpec& s : offloadSpecs_) {
      GraphKernel& k = plan_.kernels[s.kernel];
      if (offloads == nullptr) {
        throw Error(strCat("kernel '", k.name, "' is offloaded to backend '", s.backend,
                           "', but no backend runtimes were given to load it with"));
      }
      try {
        k.offload = offloads->create(s.backend, s.payload);
      } catch (const Error& e) {
        throw Error(strCat("kernel '", k.name, "': ", e.what()));
      }
    }
  }

 private:
  static size_t nonNegative(const Json& j, const char* what) {
    int64_t v = j.asInt();
    if (v < 0) throw Error(strCat(what, " must be >= 0, got ", v));
    return static_cast<size_t>(v);
  }

  int64_t tensorId(const Json& j) const {
    int64_t id = j.asInt();
    if (id < 0 || static_cast<size_t>(id) >= plan_.tensors.size()) {
      throw Error(strCat("tensor id ", id, " is out of range [0, ", plan_.tensors.size(), ")"));
    }
    return id;
  }

  void readStorages() {
    const Json::Array& storages = (where_ = "storages", meta_.at("storages").asArray());
    for (size_t i = 0; i < storages.size(); ++i) {
      where_ = strCat("storages[", i, "].size");
      plan_.storageSizes.push_back(nonNegative(storages[i].at("size"), "a storage size"));
    }
  }

  void readTensors() {
    const Json::Array& tensors = (where_ = "tensors", meta_.at("tensors").asArray());
    for (size_t i = 0; i < tensors.size(); ++i) {
      const Json& t = tensors[i];
      GraphTensor g;
      where_ = strCat("tensors[", i, "].name");
      g.name = t.at("name").asString();
      where_ = strCat("tensors[", i, "].shape");
      for (const Json& d : t.at("shape").asArray()) g.shape.push_back(d.asInt());
      where_ = strCat("tensors[", i, "].dtype");
      g.dtype = DataType::parse(t.at("dtype").asString());
      where_ = strCat("tensors[", i, "].storage");
      g.storage = t.at("storage").asInt();
      if (t.contains("dims")) {
        where_ = strCat("tensors[", i, "].dims");
        g.symbolicDims = readSymbolicDims(t.at("dims"), plan_.symbols.size());
        if (g.symbolicDims.size() != g.shape.size()) {
          throw Error(strCat(g.symbolicDims.size(), " dims for a tensor of rank ", g.shape.size()));
        }
      }
      if (t.contains("kind")) {
        where_ = strCat("tensors[", i, "].kind");
        g.kind = parseValueKind(t.at("kind").asString());
        g.unranked = t.contains("unranked") && t.at("unranked").asBool();
      }
      if (g.isList()) {
        checkList(g);
      } else if (g.dynamic()) {
        checkRunTimeShape(g);
      } else if (g.dtype.isString()) {
        throw Error(strCat("'", g.name, "' is a string tensor but has storage ", g.storage,
                           "; expected -2 (strings are allocated when written)"));
      } else {
        if (t.contains("capacity")) readCapacity(g, t.at("capacity"), i);
        if (t.contains("cache")) readCache(g, t.at("cache"), i);
        where_ = strCat("tensors[", i, "].shape");
        shapeNumel(g.placedShape());  // rejects negative and overflowing dimensions here
        g.nbytes = checkedBytes(g);
        where_ = strCat("tensors[", i, "].storage");
        if (g.storage != -1) checkPlacement(g, t, i);
      }
      plan_.tensors.push_back(std::move(g));
    }
  }

  // The shape a tensor sized by symbols is placed at: one entry >= 0 per dim, the dim itself
  // where it is a constant.
  void readCapacity(GraphTensor& g, const Json& capacity, size_t i) {
    where_ = strCat("tensors[", i, "].capacity");
    if (g.symbolicDims.empty() || g.storage < 0) {
      throw Error(strCat("'", g.name, "' has a capacity but no dims in symbols and a storage"));
    }
    for (const Json& d : capacity.asArray()) g.capacity.push_back(d.asInt());
    if (g.capacity.size() != g.shape.size()) {
      throw Error(
          strCat("capacity ", shapeStr(g.capacity), " for a tensor of rank ", g.shape.size()));
    }
    for (size_t d = 0; d < g.shape.size(); ++d) {
      bool ok = g.shape[d] == kDynamicDim ? g.capacity[d] >= 0 : g.capacity[d] == g.shape[d];
      if (!ok) {
        throw Error(
            strCat("capacity ", shapeStr(g.capacity), " does not hold shape ", shapeStr(g.shape)));
      }
    }
  }

  // A cache written in place: sized by symbols, its rows on an axis at least what that axis holds
  // at the bounds.
  void readCache(GraphTensor& g, const Json& cache, size_t i) {
    where_ = strCat("tensors[", i, "].cache");
    if (!g.resized()) throw Error(strCat("'", g.name, "' is a cache but has no capacity"));
    g.layout = {cache.at("axis").asInt(), cache.at("rows").asInt()};
    auto rank = static_cast<int64_t>(g.shape.size());
    if (g.layout.axis < 0 || g.layout.axis >= rank) {
      throw Error(strCat("cache axis ", g.layout.axis, " of a tensor of rank ", rank));
    }
    auto axis = static_cast<size_t>(g.layout.axis);
    if (g.layout.rows < g.capacity[axis]) {
      throw Error(strCat("'", g.name, "' holds ", g.capacity[axis], " rows on axis ", axis,
                         " at its bounds but its cache is laid out for ", g.layout.rows));
    }
    g.cachedShape = g.capacity;
    g.cachedShape[axis] = g.layout.rows;
  }

  // A sequence or optional: sized at run time, its tensors' dims -1 (unknown) or >= 0.
  static void checkList(const GraphTensor& g) {
    if (!g.dynamic()) {
      throw Error(strCat("'", g.name, "' is a ", valueKindName(g.kind), " but has storage ",
                         g.storage, "; expected -2 (sized at run time)"));
    }
    for (int64_t d : g.shape) {
      if (d < kDynamicDim) throw Error(strCat("dimension ", d, " of '", g.name, "' is invalid"));
    }
    if (g.unranked && !g.shape.empty()) {
      throw Error(strCat("'", g.name, "' is unranked but has shape ", shapeStr(g.shape)));
    }
  }

  // A tensor sized at run time: its dims are -1 (unknown) or >= 0.
  static void checkRunTimeShape(const GraphTensor& g) {
    bool unknown = false;
    for (int64_t d : g.shape) {
      if (d < kDynamicDim) throw Error(strCat("dimension ", d, " of '", g.name, "' is invalid"));
      unknown = unknown || d == kDynamicDim;
    }
    if (!unknown && !g.dtype.isString()) {  // strings are never planned, whatever their shape
      throw Error(strCat("tensor '", g.name,
                         "' has storage -2 (sized at run time) but a static "
                         "shape ",
                         shapeStr(g.shape)));
    }
  }

  static size_t checkedBytes(const GraphTensor& g) {
    auto numel = static_cast<uint64_t>(shapeNumel(g.placedShape()));
    uint64_t bytes = g.dtype.bytes();
    if (bytes != 0 && numel > std::numeric_limits<uint64_t>::max() / bytes) {
      throw Error(strCat("tensor ", g.dtype.str(), shapeStr(g.placedShape()), " is too large"));
    }
    return numel * bytes;
  }

  void checkPlacement(GraphTensor& g, const Json& t, size_t i) {
    if (g.storage < 0 || static_cast<size_t>(g.storage) >= plan_.storageSizes.size()) {
      throw Error(strCat("storage id ", g.storage, " is out of range [0, ",
                         plan_.storageSizes.size(), ") (-1 marks a parameter)"));
    }
    where_ = strCat("tensors[", i, "].offset");
    g.offset = nonNegative(t.at("offset"), "an offset");
    size_t size = plan_.storageSizes[g.storage];
    if (g.offset > size || g.nbytes > size - g.offset) {
      throw Error(strCat("tensor '", g.name, "' (", g.nbytes, " bytes at offset ", g.offset,
                         ") does not fit in storage ", g.storage, " of ", size, " bytes"));
    }
  }

  std::vector<int64_t> readIds(const char* key) {
    where_ = key;
    std::vector<int64_t> ids;
    const Json::Array& arr = meta_.at(key).asArray();
    for (size_t i = 0; i < arr.size(); ++i) {
      where_ = strCat(key, "[", i, "]");
      ids.push_back(tensorId(arr[i]));
    }
    return ids;
  }

  void checkUniqueNames(const char* key, const std::vector<int64_t>& ids) {
    std::set<std::string> names;
    for (size_t i = 0; i < ids.size(); ++i) {
      where_ = strCat(key, "[", i, "]");
      if (!names.insert(plan_.tensors[ids[i]].name).second) {
        throw Error(strCat("duplicate name '", plan_.tensors[ids[i]].name, "'"));
      }
    }
  }

  void checkRoles() {
    std::vector<bool> isParam(plan_.tensors.size(), false);
    for (size_t i = 0; i < plan_.params.size(); ++i) {
      where_ = strCat("params[", i, "]");
      const GraphTensor& t = plan_.tensors[plan_.params[i]];
      if (t.storage != -1) throw Error(strCat("parameter '", t.name, "' must have storage -1"));
      isParam[plan_.params[i]] = true;
    }
    for (size_t i = 0; i < plan_.inputs.size(); ++i) {
      where_ = strCat("inputs[", i, "]");
      const GraphTensor& t = plan_.tensors[plan_.inputs[i]];
      if (t.storage < 0 && !t.dynamic()) throw Error(strCat("input '", t.name, "' has no storage"));
    }
    for (size_t i = 0; i < plan_.tensors.size(); ++i) {
      where_ = strCat("tensors[", i, "].storage");
      if (plan_.tensors[i].storage == -1 && !isParam[i]) {
        throw Error(strCat("tensor '", plan_.tensors[i].name,
                           "' has storage -1 but is not listed in \"params\""));
      }
    }
    checkUniqueNames("inputs", plan_.inputs);
    checkUniqueNames("params", plan_.params);
  }

  // Every symbol is an input's dim of its own, where the given shape sizes it: one written
  // otherwise could never take a size. An input's dim written in several symbols (past+seq) is
  // checked against theirs.
  void checkSymbolsBound() {
    std::vector<bool> bound(plan_.symbols.size(), false);
    for (int64_t id : plan_.inputs) {
      for (const SymbolicDim& d : plan_.tensors[id].symbolicDims) {
        if (d.singleSymbol() >= 0) bound[d.singleSymbol()] = true;
      }
    }
    for (size_t i = 0; i < plan_.inputs.size(); ++i) {
      where_ = strCat("inputs[", i, "]");
      const GraphTensor& t = plan_.tensors[plan_.inputs[i]];
      for (const SymbolicDim& d : t.symbolicDims) {
        if (!d.derived()) continue;
        for (const std::vector<int64_t>& term : d.terms) {
          for (size_t f = 1; f < term.size(); ++f) {
            if (bound[term[f]]) continue;
            throw Error(strCat("input '", t.name, "' has dim ", d.str(plan_.symbols), ", but no ",
                               "input has '", plan_.symbols[term[f]].name,
                               "' as a dim of its own"));
          }
        }
      }
    }
    for (size_t s = 0; s < bound.size(); ++s) {
      where_ = strCat("symbols[", s, "]");
      if (!bound[s]) {
        throw Error(strCat("symbol '", plan_.symbols[s].name, "' is no input's dim"));
      }
    }
  }

  void readKernels() {
    const Json::Array& kernels = (where_ = "kernels", meta_.at("kernels").asArray());
    for (size_t i = 0; i < kernels.size(); ++i) {
      GraphKernel k;
      where_ = strCat("kernels[", i, "].name");
      k.name = kernels[i].at("name").asString();
      bool runtimeOp = kernels[i].contains("runtime_op");
      where_ = strCat("kernels[", i, "].args");
      for (const Json& a : kernels[i].at("args").asArray()) {
        k.args.push_back(runtimeOp && a.asInt() == -1 ? -1 : tensorId(a));
      }
      if (runtimeOp) {
        readRuntimeOp(kernels[i].at("runtime_op"), i, k);
      } else if (kernels[i].contains("offload")) {
        readOffload(kernels[i].at("offload"), i, k);
      } else {
        where_ = strCat("kernels[", i, "].symbol");
        k.symbol = kernels[i].at("symbol").asString();
        k.fn = reinterpret_cast<KilnKernelFn>(plan_.library->getSymbol(k.symbol));
        readReadsSymbols(kernels[i], i, k);
      }
      readProfileFields(kernels[i], i, k);
      if (runtimeOp) {
        readOutputDtypes(kernels[i].at("runtime_op"), i, k);
        readBodies(kernels[i].at("runtime_op"), i, k);
      }
      where_ = strCat("kernels[", i, "].args");
      if (!runtimeOp) checkStaticArgs(k);
      plan_.totalArgs += k.args.size() + (k.readsSymbols ? 1 : 0);
      plan_.kernels.push_back(std::move(k));
    }
  }

  void readReadsSymbols(const Json& j, size_t i, GraphKernel& k) {
    if (!j.contains("reads_symbols")) return;
    where_ = strCat("kernels[", i, "].reads_symbols");
    k.readsSymbols = j.at("reads_symbols").asBool();
    if (k.readsSymbols && plan_.symbols.empty()) {
      throw Error(strCat("kernel '", k.name, "' reads symbols, but the model has none"));
    }
  }

  void readRuntimeOp(const Json& j, size_t i, GraphKernel& k) {
    where_ = strCat("kernels[", i, "].runtime_op.op");
    std::string op = j.at("op").asString();
    k.runtimeOp = findRuntimeOp(op);
    if (k.runtimeOp == nullptr && !runtimeOpsUnavailable().empty()) {
      throw Error(strCat("op '", op, "' runs in the runtime's op library ", kRuntimeOpsLibrary,
                         ", which is not here: ", runtimeOpsUnavailable(),
                         "; install it beside libkiln_runtime.so"));
    }
    if (k.runtimeOp == nullptr) {
      std::string known;
      for (const std::string& name : runtimeOpNames()) known += (known.empty() ? "" : ", ") + name;
      throw Error(strCat("op '", op, "' is not one this runtime executes (it executes: ", known,
                         "); the library needs a newer runtime"));
    }
    where_ = strCat("kernels[", i, "].runtime_op.attrs");
    k.attrs = j.contains("attrs") ? j.at("attrs") : Json(Json::Object{});
    if (!k.attrs.isObject()) throw Error("expected an object");
    k.symbol = "runtime:" + op;
    k.op = op;
    k.label = strCat(op, " '", k.name, "'");
  }

  // One dtype per output of a runtime op (optional: older libraries have none).
  void readOutputDtypes(const Json& j, size_t i, GraphKernel& k) {
    if (!j.contains("output_dtypes")) return;
    where_ = strCat("kernels[", i, "].runtime_op.output_dtypes");
    for (const Json& t : j.at("output_dtypes").asArray())
      k.outputDtypes.push_back(DataType::parse(t.asString()));
    if (k.outputDtypes.size() != k.numOutputs) {
      throw Error(strCat("expected ", k.numOutputs, " dtypes, one per output; got ",
                         k.outputDtypes.size()));
    }
  }

  // A control-flow kernel's bodies, each a plan of its own over the same library.
  void readBodies(const Json& j, size_t i, GraphKernel& k) {
    size_t inputs = k.args.size() - k.numOutputs;
    k.formalInputs = inputs;
    if (!j.contains("bodies")) return;
    where_ = strCat("kernels[", i, "].runtime_op.formal_inputs");
    k.formalInputs = nonNegative(j.at("formal_inputs"), "an input count");
    if (k.formalInputs > inputs) {
      throw Error(strCat(k.formalInputs, " formal inputs, but only ", inputs, " inputs"));
    }
    for (const auto& [attr, meta] : j.at("bodies").asObject()) {
      std::string at = strCat("kernels[", i, "].runtime_op.bodies.", attr);
      GraphBody body;
      body.attr = attr;
      where_ = at;
      body.plan = parseGraphPlan(meta, plan_.library, strCat(plan_.model, "/", k.name, "/", attr),
                                 offloads_);
      where_ = at + ".captured_inputs";
      body.capturedInputs = inputPositions(meta.at("captured_inputs"), inputs);
      where_ = at + ".param_inputs";
      body.paramInputs = inputPositions(meta.at("param_inputs"), inputs);
      if (body.paramInputs.size() != body.plan->params.size()) {
        throw Error(strCat(body.paramInputs.size(), " entries for the body's ",
                           body.plan->params.size(), " parameters"));
      }
      if (body.capturedInputs.size() > body.plan->inputs.size()) {
        throw Error(strCat(body.capturedInputs.size(), " captured values for the body's ",
                           body.plan->inputs.size(), " inputs"));
      }
      k.bodies.push_back(std::move(body));
    }
  }

  std::vector<size_t> inputPositions(const Json& j, size_t inputs) {
    std::vector<size_t> out;
    for (const Json& e : j.asArray()) {
      size_t p = nonNegative(e, "an input position");
      if (p >= inputs)
        throw Error(strCat("input position ", p, " is out of range [0, ", inputs, ")"));
      out.push_back(p);
    }
    return out;
  }

  // Compiled code has static shapes: a tensor sized at run time may reach only runtime ops.
  void checkStaticArgs(const GraphKernel& k) const {
    for (int64_t id : k.args) {
      if (plan_.tensors[id].dynamic()) {
        throw Error(strCat("kernel '", k.name, "' is compiled code, but its argument '",
                           plan_.tensors[id].name, "' is sized at run time"));
      }
    }
  }

  void readOffload(const Json& j, size_t i, GraphKernel& k) {
    where_ = strCat("kernels[", i, "].offload.backend");
    std::string backend = j.at("backend").asString();
    where_ = strCat("kernels[", i, "].offload.payload");
    std::string payload = base64Decode(j.at("payload").asString(), "the payload");
    k.symbol = "offload:" + backend;
    offloadSpecs_.push_back({plan_.kernels.size(), backend, std::move(payload)});
  }

  // What profiles show of a kernel; optional, so metadata without them still loads.
  void readProfileFields(const Json& j, size_t i, GraphKernel& k) {
    if (j.contains("num_outputs")) {
      where_ = strCat("kernels[", i, "].num_outputs");
      k.numOutputs = nonNegative(j.at("num_outputs"), "an output count");
      if (k.numOutputs > k.args.size()) {
        throw Error(strCat(k.numOutputs, " outputs but only ", k.args.size(), " arguments"));
      }
    }
    if (j.contains("ops")) {
      where_ = strCat("kernels[", i, "].ops");
      for (const Json& op : j.at("ops").asArray()) k.ops.push_back(op.asString());
    }
    if (j.contains("flops")) {
      where_ = strCat("kernels[", i, "].flops");
      k.flops = static_cast<int64_t>(nonNegative(j.at("flops"), "a flop count"));
    }
  }

  const Json& meta_;
  GraphPlan& plan_;
  OffloadRuntimes* offloads_;
  struct OffloadSpec {
    size_t kernel;
    std::string backend, payload;
  };
  std::vector<OffloadSpec> offloadSpecs_;
  std::string where_ = "metadata";
};

}  // namespace

int64_t GraphPlan::paramIndex(const std::string& name) const {
  return indexByName(*this, params, name);
}

int64_t GraphPlan::inputIndex(const std::string& name) const {
  return indexByName(*this, inputs, name);
}

std::string GraphPlan::paramNames() const { return joinNames(*this, params); }
std::string GraphPlan::inputNames() const { return joinNames(*this, inputs); }

std::shared_ptr<const GraphPlan> parseGraphPlan(const Json& metadata,
                                                std::shared_ptr<SharedLibrary> library,
                                                const std::string& model,
                                                OffloadRuntimes* offloads) {
  auto plan = std::make_shared<GraphPlan>();
  plan->model = model;
  plan->library = std::move(library);
  KILN_CHECK(plan->library, "a graph plan needs its library");
  PlanReader reader(metadata, *plan, offloads);
  try {
    reader.read();
  } catch (const Error& e) {
    throw Error(strCat("model '", model, "': invalid graph executor metadata at ", reader.where(),
                       ": ", e.what()));
  }
  try {
    reader.createOffloads(offloads);
  } catch (const Error& e) {
    throw Error(strCat("model '", model, "': ", e.what()));
  }
  return plan;
}

}  // namespace kiln::runtime
