// The graph executor module: one model instance over its own static memory plan. All storage and
// every kernel's argument array are built at creation, so run() only calls kernels.
#include <algorithm>
#include <map>

#include "executor_util.h"
#include "graph_plan.h"
#include "kernel_status.h"
#include "kiln/runtime/artifact.h"
#include "kiln/support/error.h"
#include "list_values.h"

namespace kiln::runtime {

namespace {

class GraphExecutorNode final : public ModuleNode, public GraphKernelRunner {
 public:
  GraphExecutorNode(std::shared_ptr<const GraphPlan> plan, const GraphParams& params, Device device)
      : plan_(std::move(plan)) {
    if (device.type != kDLCPU) {
      throw Error(
          strCat("model '", plan_->model, "': the graph executor runs on cpu, got ", device.str()));
    }
    for (size_t k = 0; k < plan_->storageSizes.size(); ++k) allocateStorage(k, device);
    bound_.assign(storages_.size(), false);
    overwritten_.assign(storages_.size(), false);
    tensors_.resize(plan_->tensors.size());
    lists_.resize(plan_->tensors.size());
    for (size_t i = 0; i < plan_->tensors.size(); ++i) {
      lists_[i].none = isOptional(plan_->tensors[i].kind);  // until something sets it
    }
    for (size_t i = 0; i < plan_->tensors.size(); ++i) {
      const GraphTensor& t = plan_->tensors[i];
      if (t.storage >= 0) {
        tensors_[i] = storages_[t.storage].view(t.placedShape(), t.dtype, t.offset);
      }
      if (t.resized()) resizedTensors_.push_back(static_cast<int64_t>(i));
    }
    inputSet_.assign(plan_->inputs.size(), false);
    KILN_CHECK(params.size() == plan_->params.size(), "params do not match the plan");
    for (size_t p = 0; p < params.size(); ++p) tensors_[plan_->params[p]] = params[p];
    args_.resize(plan_->totalArgs);
    size_t start = 0;
    for (const GraphKernel& k : plan_->kernels) {
      argStart_.push_back(start);
      start += k.args.size() + (k.readsSymbols ? 1 : 0);
    }
    refreshArgs();
  }

  const char* typeKey() const override { return "graph_executor"; }

  PackedFunc getFunction(const std::string& name) override {
    auto it = functions().find(name);
    if (it == functions().end()) return {};
    auto self = std::static_pointer_cast<GraphExecutorNode>(shared_from_this());
    Method method = it->second;
    return PackedFunc([self, method](const Args& args) { return method(*self, args); });
  }

  std::vector<std::string> functionNames() const override {
    std::vector<std::string> names;
    for (const auto& [name, method] : functions()) names.push_back(name);
    return names;
  }

 private:
  using Method = Value (*)(GraphExecutorNode&, const Args&);

  static const std::map<std::string, Method>& functions() {
    static const std::map<std::string, Method> kTable = {
        {"set_input", [](GraphExecutorNode& n, const Args& a) { return n.setInput(a); }},
        {"get_input", [](GraphExecutorNode& n, const Args& a) { return n.getInput(a); }},
        {"run",
         [](GraphExecutorNode& n, const Args& a) {
           checkArgCount("run", a, 0);
           n.run();
           return Value();
         }},
        {"get_output", [](GraphExecutorNode& n, const Args& a) { return n.getOutput(a); }},
        {"set_input_from_output",
         [](GraphExecutorNode& n, const Args& a) { return n.setInputFromOutput(a); }},
        {"set_input_zero_copy",
         [](GraphExecutorNode& n, const Args& a) {
           checkArgCount("set_input_zero_copy", a, 2);
           size_t pos = n.inputPosition("set_input_zero_copy", a[0]);
           n.bindStorage("set_input_zero_copy", n.plan_->inputs[pos], a[1].asNDArray(), false);
           return Value();
         }},
        {"set_output_zero_copy",
         [](GraphExecutorNode& n, const Args& a) {
           checkArgCount("set_output_zero_copy", a, 2);
           size_t pos = n.outputPosition(a[0]);
           n.bindStorage("set_output_zero_copy", n.plan_->outputs[pos], a[1].asNDArray(), true);
           return Value();
         }},
        {"get_num_inputs",
         [](GraphExecutorNode& n, const Args& a) {
           checkArgCount("get_num_inputs", a, 0);
           return Value(static_cast<int64_t>(n.plan_->inputs.size()));
         }},
        {"get_num_outputs",
         [](GraphExecutorNode& n, const Args& a) {
           checkArgCount("get_num_outputs", a, 0);
           return Value(static_cast<int64_t>(n.plan_->outputs.size()));
         }},
        {"get_input_index",
         [](GraphExecutorNode& n, const Args& a) {
           checkArgCount("get_input_index", a, 1);
           return Value(n.plan_->inputIndex(a[0].asString()));
         }},
        {"get_input_info",
         [](GraphExecutorNode& n, const Args& a) {
           checkArgCount("get_input_info", a, 0);
           return Value(n.info(n.plan_->inputs));
         }},
        {"get_output_info",
         [](GraphExecutorNode& n, const Args& a) {
           checkArgCount("get_output_info", a, 0);
           return Value(n.info(n.plan_->outputs));
         }},
        {"load_params",
         [](GraphExecutorNode& n, const Args& a) {
           checkArgCount("load_params", a, 1);
           n.replaceParams(a[0].asBytes());
           return Value();
         }},
        {"share_params", [](GraphExecutorNode& n, const Args& a) { return n.shareParams(a); }},
    };
    return kTable;
  }

  // The data pointers of every compiled kernel's arguments, rebuilt only when parameters change
  // (a runtime op reads its tensors when it runs).
  void refreshArgs() {
    missingParams_ = 0;
    for (int64_t id : plan_->params) missingParams_ += tensors_[id].defined() ? 0 : 1;
    for (size_t k = 0; k < plan_->kernels.size(); ++k) {
      if (plan_->kernels[k].runtimeOp) continue;
      const std::vector<int64_t>& ids = plan_->kernels[k].args;
      for (size_t j = 0; j < ids.size(); ++j) {
        const NDArray& t = tensors_[ids[j]];
        args_[argStart_[k] + j] = t.defined() ? t.data() : nullptr;
      }
      if (plan_->kernels[k].readsSymbols) {
        args_[argStart_[k] + ids.size()] = const_cast<int64_t*>(binder_.values().data());
      }
    }
  }

  // An input position from a name or an index, for set_input/get_input.
  size_t inputPosition(const char* function, const Value& which) const {
    return runtime::inputPosition(
        function, which, plan_->model, plan_->inputs.size(),
        [this](const std::string& name) { return plan_->inputIndex(name); },
        [this] { return plan_->inputNames(); });
  }

  size_t outputPosition(const Value& which, const char* function = "get_output") const {
    return runtime::outputPosition(function, which, plan_->model, plan_->outputs.size());
  }

  // Working memory is the one large allocation an executor makes; when it fails, say for what.
  void allocateStorage(size_t k, Device device) {
    size_t bytes = plan_->storageSizes[k];
    try {
      storages_.push_back(NDArray::empty({static_cast<int64_t>(bytes)}, DataType::uint8(), device));
    } catch (const std::exception& e) {
      std::string holders;
      int shown = 0;
      for (const GraphTensor& t : plan_->tensors) {
        if (t.storage != static_cast<int64_t>(k)) continue;
        if (shown++ < 4) holders += strCat(holders.empty() ? "" : ", ", "'", t.name, "'");
      }
      if (shown > 4) holders += strCat(" and ", shown - 4, " more");
      throw Error(strCat("model '", plan_->model, "': cannot allocate working memory block ", k,
                         " (", bytes, " bytes, holding tensors ", holders, "): ", e.what()));
    }
  }

  // Points every tensor placed in ID's storage (the input or output itself, and the inputs of an
  // in-place Concat writing into it) at BUFFER; a null BUFFER restores the executor's own storage.
  void bindStorage(int64_t id, const NDArray& buffer) {
    auto sid = static_cast<size_t>(plan_->tensors[id].storage);
    // Inputs and outputs own their storage from offset 0 (transform/plan_memory.h).
    KILN_CHECK(plan_->tensors[id].offset == 0, "tensor ", plan_->tensors[id].name,
               " does not start its storage");
    const NDArray& base = buffer.defined() ? buffer : storages_[sid];
    for (size_t i = 0; i < plan_->tensors.size(); ++i) {
      const GraphTensor& t = plan_->tensors[i];
      if (t.storage == static_cast<int64_t>(sid))
        tensors_[i] = base.view(t.shape, t.dtype, t.offset);
    }
    bound_[sid] = buffer.defined();
    refreshArgs();
  }

  // Binds BUFFER (checked) in place of tensor ID, for zero-copy I/O.
  void bindStorage(const char* function, int64_t id, const NDArray& buffer, bool written) {
    const GraphTensor& t = plan_->tensors[id];
    if (t.resized()) {
      throw Error(strCat(function, ": '", t.name, "' of model '", plan_->model, "' is ",
                         describe(t.shape, t.dtype), ", sized per run by its symbols (",
                         symbolicShapeStr(t),
                         "): give it with set_input, read it with get_output"));
    }
    if (t.dynamic()) {
      throw Error(strCat(function, ": '", t.name, "' of model '", plan_->model, "' is ",
                         describe(t.shape, t.dtype),
                         t.dtype.isString()
                             ? ", whose strings the executor allocates: give it with set_input, "
                               "read it with get_output"
                             : ", sized at run time: read it with get_output after run()"));
    }
    checkBindable(function, t.name, t.shape, t.dtype, buffer, written);
    bindStorage(id, buffer);
  }

  Value setInput(const Args& a) {
    checkArgCount("set_input", a, 2);
    size_t pos = inputPosition("set_input", a[0]);
    const GraphTensor& t = plan_->tensors[plan_->inputs[pos]];
    if (t.isList()) {
      lists_[plan_->inputs[pos]] =
          listFromValue(strCat("set_input('", t.name, "')"), listType(t), a[1]);
    } else {
      setInputArray(pos, a[1].asNDArray());
    }
    return Value();
  }

  static ListType listType(const GraphTensor& t) { return {t.kind, t.dtype, t.shape, t.unranked}; }

  // Sets list input POS to VALUE (checked; its tensors are shared, never written).
  void setInputList(size_t pos, const TensorList& value) {
    int64_t id = plan_->inputs[pos];
    const GraphTensor& t = plan_->tensors[id];
    if (!t.isList()) {
      throw Error(strCat("set_input('", t.name, "'): expected ", describe(t.shape, t.dtype),
                         ", got ", describeList(value)));
    }
    checkList(strCat("set_input('", t.name, "')"), listType(t), value);
    lists_[id] = value;
  }

  // Sets input POS to the value OUTER holds as its tensor or list ID.
  void setInputFrom(size_t pos, const GraphExecutorNode& outer, int64_t id) {
    if (outer.plan_->tensors[id].isList()) {
      setInputList(pos, outer.lists_[id]);
    } else {
      setInputArray(pos, outer.tensors_[id]);
    }
  }

  // Copies VALUE (laid out FROM) into input POS: one of its planned shape, or for an input sized
  // at run time (a body's loop-carried value) one whose known dims agree, into a buffer grown as
  // needed.
  void setInputArray(size_t pos, const NDArray& value, RowLayout from = {},
                     const char* function = "set_input") {
    int64_t id = plan_->inputs[pos];
    const GraphTensor& t = plan_->tensors[id];
    checkInputValue(function, t, value);
    if (t.dynamic()) {
      tensors_[id] = grown(runTimeBuffers_[id], value.shape(), t.dtype);
    } else if (t.resized()) {
      tensors_[id].reshapeInPlace(value.shape());
    } else if (bound_[static_cast<size_t>(t.storage)]) {
      bindStorage(id, NDArray());
    }
    copyLaidOut(value, from, tensors_[id], t.layout);
    if (t.cached()) overwritten_[static_cast<size_t>(t.storage)] = true;
    inputSet_[pos] = true;
  }

  // Throws when output ID is a cache whose storage a past was written into after the last run.
  void checkPresent(const char* function, int64_t id) const {
    const GraphTensor& t = plan_->tensors[id];
    if (!t.cached() || !overwritten_[static_cast<size_t>(t.storage)]) return;
    std::string past;
    for (int64_t in : plan_->inputs) {
      if (plan_->tensors[in].storage == t.storage) past = plan_->tensors[in].name;
    }
    throw Error(strCat(function, ": output '", t.name, "' of model '", plan_->model,
                       "' shares its storage with input '", past,
                       "', which was set after the last run; run() again to read it"));
  }

  void checkInputValue(const char* function, const GraphTensor& t, const NDArray& value) const {
    if (t.isList()) {
      throw Error(strCat(function, "('", t.name, "'): expected ", listType(t).str(), ", got ",
                         describe(value.shape(), value.dtype())));
    }
    if (value.dtype() != t.dtype || !shapeFits(t.shape, value.shape())) {
      throw Error(strCat(function, "('", t.name, "'): expected ", describe(t.shape, t.dtype),
                         ", got ", describe(value.shape(), value.dtype())));
    }
    checkSymbolBounds(function, t.name, t.symbolicDims, value.shape(), plan_->symbols);
    for (size_t d = 0; d < t.symbolicDims.size() && t.resized(); ++d) {
      if (!t.symbolicDims[d].derived() || value.shape()[d] <= t.capacity[d]) continue;
      throw Error(strCat(function, "('", t.name, "'): dim ", d, " is ",
                         t.symbolicDims[d].str(plan_->symbols), ", at most ", t.capacity[d],
                         " within the bounds; got ", value.shape()[d]));
    }
  }

  // set_input_from_output(input, output): the last run's OUTPUT as INPUT, copied inside the
  // executor. A cache's present becomes its past in place (they share a storage): only the
  // length changes, nothing is copied or allocated.
  Value setInputFromOutput(const Args& a) {
    checkArgCount("set_input_from_output", a, 2);
    size_t pos = inputPosition("set_input_from_output", a[0]);
    int64_t in = plan_->inputs[pos];
    int64_t out = plan_->outputs[outputPosition(a[1], "set_input_from_output")];
    const GraphTensor &ti = plan_->tensors[in], &to = plan_->tensors[out];
    if (!ran_) {
      throw Error(strCat("set_input_from_output('", ti.name, "', '", to.name, "'): model '",
                         plan_->model, "' has not run yet, so its outputs have no value"));
    }
    if (to.isList()) {
      if (!ti.isList()) {
        throw Error(strCat("set_input_from_output('", ti.name, "'): expected ",
                           describe(ti.shape, ti.dtype), ", got output '", to.name, "', ",
                           listType(to).str()));
      }
      setInputList(pos, lists_[out]);
      return Value();
    }
    checkPresent("set_input_from_output", out);
    const NDArray& value = tensors_[out];
    if (ti.cached() && ti.storage == to.storage && ti.offset == to.offset) {
      checkInputValue("set_input_from_output", ti, value);
      tensors_[in].reshapeInPlace(value.shape());
      inputSet_[pos] = true;
      return Value();
    }
    setInputArray(pos, value, to.layout, "set_input_from_output");
    return Value();
  }

  Value getInput(const Args& a) {
    checkArgCount("get_input", a, 1);
    int64_t id = plan_->inputs[inputPosition("get_input", a[0])];
    if (plan_->tensors[id].isList()) return valueFromList(plan_->tensors[id].kind, lists_[id]);
    return Value(tensorCopy(id));
  }

  void startRun() override {
    checkWeights();
    bindSymbols();
    ran_ = true;  // also for the debug executor, which calls the kernels itself
    std::fill(overwritten_.begin(), overwritten_.end(), false);
  }

  void checkWeights() const {
    if (missingParams_ != 0) {
      std::string missing;
      for (int64_t id : plan_->params) {
        if (tensors_[id].defined()) continue;
        missing += (missing.empty() ? "" : ", ") + plan_->tensors[id].name;
      }
      throw Error(strCat("run(): model '", plan_->model, "': parameters not loaded (missing ",
                         missingParams_, ": ", missing,
                         "); the weights ship separately: load them with load_params or the "
                         "factory's load_params_file (kiln run: --params FILE)"));
    }
  }

  // One call of a runtime op: its tensors are the executor's, its run-time sized outputs live
  // in buffers the executor keeps across runs and grows when a run needs more.
  class RuntimeOpCall final : public RuntimeOpContext {
   public:
    RuntimeOpCall(GraphExecutorNode& ex, size_t k)
        : ex_(ex),
          k_(k),
          kernel_(ex.plan_->kernels[k]),
          inputs_(kernel_.args.size() - kernel_.numOutputs) {}
    Subgraph& body(const std::string& attr) override { return ex_.body(k_, attr); }
    const std::string& op() const override { return kernel_.op; }
    const std::string& label() const override { return kernel_.label; }
    const Json& attrs() const override { return kernel_.attrs; }
    size_t numInputs() const override { return kernel_.formalInputs; }
    bool hasInput(size_t i) const override {
      return i < kernel_.formalInputs && kernel_.args[i] >= 0;
    }
    const NDArray& input(size_t i) const override {
      if (!hasInput(i)) throw Error(strCat(kernel_.label, ": input ", i, " is required"));
      return ex_.tensors_[kernel_.args[i]];
    }
    size_t numOutputs() const override { return kernel_.numOutputs; }
    DataType outputDtype(size_t i) const override {
      int64_t id = i < kernel_.numOutputs ? kernel_.args[inputs_ + i] : -1;
      if (id >= 0) return ex_.plan_->tensors[id].dtype;
      return i < kernel_.outputDtypes.size() ? kernel_.outputDtypes[i] : DataType::int64();
    }
    bool hasOutput(size_t i) const override {
      return i < kernel_.numOutputs && kernel_.args[inputs_ + i] >= 0;
    }
    NDArray output(size_t i, const Shape& shape) override {
      // An output past the model's last one is computed into scratch memory, like an omitted one.
      int64_t id = i < kernel_.numOutputs ? kernel_.args[inputs_ + i] : -1;
      return ex_.runTimeOutput(k_, id, i, shape, outputDtype(i));
    }
    ValueKind inputKind(size_t i) const override {
      return hasInput(i) ? ex_.plan_->tensors[kernel_.args[i]].kind : ValueKind::kTensor;
    }
    ValueKind outputKind(size_t i) const override {
      int64_t id = i < kernel_.numOutputs ? kernel_.args[inputs_ + i] : -1;
      return id >= 0 ? ex_.plan_->tensors[id].kind : ValueKind::kTensor;
    }
    const TensorList& listInput(size_t i) const override {
      if (inputKind(i) == ValueKind::kTensor) return RuntimeOpContext::listInput(i);
      return ex_.lists_[kernel_.args[i]];
    }
    void setListOutput(size_t i, TensorList value) override {
      int64_t id = i < kernel_.numOutputs ? kernel_.args[inputs_ + i] : -1;
      if (id < 0) return;  // nothing reads it
      const GraphTensor& t = ex_.plan_->tensors[id];
      if (!t.isList()) return RuntimeOpContext::setListOutput(i, std::move(value));
      checkList(strCat(kernel_.label, ": output ", i, " '", t.name, "'"), listType(t), value);
      ex_.lists_[id] = std::move(value);
    }

   private:
    GraphExecutorNode& ex_;
    size_t k_;
    const GraphKernel& kernel_;
    size_t inputs_;
  };

  // A control-flow kernel's body: an executor of the body's plan, over the kernel's weights.
  class Body final : public Subgraph {
   public:
    Body(std::shared_ptr<GraphExecutorNode> ex, size_t formal)
        : ex_(std::move(ex)), formal_(formal) {}
    size_t numInputs() const override { return formal_; }
    size_t numOutputs() const override { return ex_->plan_->outputs.size(); }
    void setInput(size_t i, const NDArray& value) override {
      KILN_CHECK(i < formal_, "body input ", i, " of ", formal_);
      try {
        ex_->setInputArray(i, value);
      } catch (const Error& e) {
        throw Error(strCat("model '", ex_->plan_->model, "': ", e.what()));
      }
    }
    void run() override { ex_->run(); }
    const NDArray& output(size_t i) const override {
      return ex_->tensors_[ex_->plan_->outputs.at(i)];
    }
    const Shape& outputShape(size_t i) const override {
      return ex_->plan_->tensors[ex_->plan_->outputs.at(i)].shape;
    }
    ValueKind inputKind(size_t i) const override {
      return ex_->plan_->tensors[ex_->plan_->inputs.at(i)].kind;
    }
    ValueKind outputKind(size_t i) const override {
      return ex_->plan_->tensors[ex_->plan_->outputs.at(i)].kind;
    }
    void setListInput(size_t i, const TensorList& value) override {
      KILN_CHECK(i < formal_, "body input ", i, " of ", formal_);
      try {
        ex_->setInputList(i, value);
      } catch (const Error& e) {
        throw Error(strCat("model '", ex_->plan_->model, "': ", e.what()));
      }
    }
    const TensorList& listOutput(size_t i) const override {
      return ex_->lists_[ex_->plan_->outputs.at(i)];
    }
    GraphExecutorNode& executor() { return *ex_; }

   private:
    std::shared_ptr<GraphExecutorNode> ex_;
    size_t formal_;
  };

  // Body ATTR of kernel K, created on first use, with the kernel's captured values bound anew.
  Subgraph& body(size_t k, const std::string& attr) {
    const GraphKernel& kernel = plan_->kernels[k];
    for (size_t b = 0; b < kernel.bodies.size(); ++b) {
      const GraphBody& gb = kernel.bodies[b];
      if (gb.attr != attr) continue;
      std::unique_ptr<Body>& made = bodies_[{k, b}];
      if (!made) made = makeBody(kernel, gb);
      size_t formal = gb.plan->inputs.size() - gb.capturedInputs.size();
      for (size_t c = 0; c < gb.capturedInputs.size(); ++c) {
        made->executor().setInputFrom(formal + c, *this, kernel.args[gb.capturedInputs[c]]);
      }
      return *made;
    }
    throw Error(strCat(kernel.label, ": has no compiled body '", attr, "'"));
  }

  std::unique_ptr<Body> makeBody(const GraphKernel& kernel, const GraphBody& gb) const {
    GraphParams params;
    for (size_t p = 0; p < gb.paramInputs.size(); ++p) {
      const NDArray& array = tensors_[kernel.args[gb.paramInputs[p]]];
      const GraphTensor& t = gb.plan->tensors[gb.plan->params[p]];
      if (!array.defined() || array.shape() != t.shape || array.dtype() != t.dtype) {
        throw Error(strCat(kernel.label, ": weight '", t.name, "' of body '", gb.attr,
                           "' is not loaded as ", describe(t.shape, t.dtype)));
      }
      params.push_back(array);
    }
    auto ex = std::make_shared<GraphExecutorNode>(gb.plan, params, Device::cpu());
    return std::make_unique<Body>(std::move(ex), gb.plan->inputs.size() - gb.capturedInputs.size());
  }

  // Output J (tensor ID, -1 when the model omits it) of runtime op K, shaped SHAPE.
  NDArray runTimeOutput(size_t k, int64_t id, size_t j, const Shape& shape, DataType dtype) {
    const GraphKernel& kernel = plan_->kernels[k];
    if (id < 0) {  // an omitted output: computed into scratch memory of its dtype, then dropped
      NDArray& scratch = scratch_[{k, j}];
      return grown(scratch, shape, dtype);
    }
    const GraphTensor& t = plan_->tensors[id];
    if (!shapeFits(t.shape, shape)) {
      throw Error(strCat(kernel.label, ": output ", j, " '", t.name, "' came out ", shapeStr(shape),
                         "; the model declares ", shapeStr(t.shape)));
    }
    if (t.resized() && shape != tensors_[id].shape()) {
      throw Error(strCat(kernel.label, ": output ", j, " '", t.name, "' came out ", shapeStr(shape),
                         "; its dims ", symbolicShapeStr(t), " give ",
                         shapeStr(tensors_[id].shape()), " in this run"));
    }
    if (!t.dynamic()) return tensors_[id];
    tensors_[id] = grown(runTimeBuffers_[id], shape, t.dtype);
    return tensors_[id];
  }

  // A view of BUFFER as SHAPE/DTYPE, after replacing BUFFER by a larger one when it is too small.
  static NDArray grown(NDArray& buffer, const Shape& shape, DataType dtype) {
    // Strings are kept as strings (constructed objects), anything else as bytes.
    DataType unit = dtype.isString() ? dtype : DataType::uint8();
    int64_t units =
        shapeNumel(shape) * (dtype.isString() ? 1 : static_cast<int64_t>(dtype.bytes()));
    if (!buffer.defined() || buffer.dtype() != unit || buffer.numel() < units) {
      buffer = NDArray::empty({std::max<int64_t>(units, 1)}, unit);
    }
    return buffer.view(shape, dtype);
  }

  void callKernel(size_t k) override {
    const GraphKernel& kernel = plan_->kernels[k];
    if (kernel.runtimeOp) {
      RuntimeOpCall call(*this, k);
      try {
        kernel.runtimeOp(call);
      } catch (const Error& e) {
        std::string what = e.what();
        if (what.rfind("run(): ", 0) == 0) throw;  // from a body's executor, which names it
        throw Error(strCat("run(): model '", plan_->model, "': ", what));
      }
      return;
    }
    void* const* args = args_.data() + argStart_[k];
    int32_t status = kernel.offload ? kernel.offload->run(args) : kernel.fn(args);
    if (status != 0 && kernel.offload) {
      throw Error(strCat("run(): model '", plan_->model, "': kernel '", kernel.name,
                         "' (offloaded to backend '", kernel.offload->backend(),
                         "') stopped with status ", status));
    }
    if (status != 0) {
      throw Error(strCat("run(): model '", plan_->model, "': kernel '", kernel.name, "' (symbol '",
                         kernel.symbol, "') stopped: ", kernelStatusText(status)));
    }
  }

  // Sizes the plan's symbols from the inputs given (they must agree on each), then gives every
  // tensor placed at its bounds the shape its dims take: nothing is allocated.
  void bindSymbols() {
    if (plan_->symbols.empty()) return;
    binder_.restart();
    for (size_t pos = 0; pos < plan_->inputs.size(); ++pos) {
      int64_t id = plan_->inputs[pos];
      const GraphTensor& t = plan_->tensors[id];
      if (t.symbolicDims.empty()) continue;
      if (!tensors_[id].defined() || (t.resized() && !inputSet_[pos])) {
        throw Error(strCat("run(): model '", plan_->model, "': input '", t.name, "' (",
                           symbolicShapeStr(t), ") is sized when it is set and has not been"));
      }
      binder_.bind(t.name, t.symbolicDims, tensors_[id].shape());
    }
    for (int64_t id : plan_->inputs) {  // dims other inputs' symbols give (past+seq)
      const GraphTensor& t = plan_->tensors[id];
      if (!t.symbolicDims.empty()) binder_.check(t.name, t.symbolicDims, tensors_[id].shape());
    }
    for (int64_t id : resizedTensors_) {
      const GraphTensor& t = plan_->tensors[id];
      runShape_.resize(t.symbolicDims.size());
      for (size_t d = 0; d < runShape_.size(); ++d) {
        runShape_[d] = t.symbolicDims[d].evaluate(binder_.values());
      }
      tensors_[id].reshapeInPlace(runShape_);
    }
  }

  std::string symbolicShapeStr(const GraphTensor& t) const {
    std::string s = "[";
    for (size_t d = 0; d < t.symbolicDims.size(); ++d) {
      s += strCat(d ? "," : "", t.symbolicDims[d].str(plan_->symbols));
    }
    return s + "]";
  }

  const NDArray& tensorArray(int64_t id) const override { return tensors_.at(id); }

  NDArray tensorCopy(int64_t id) const override {
    const NDArray& array = tensors_.at(id);
    const GraphTensor& t = plan_->tensors[id];
    if (!t.cached()) return array.clone();
    NDArray copy = NDArray::empty(array.shape(), array.dtype());
    copyLaidOut(array, t.layout, copy, {});
    return copy;
  }
  const TensorList& tensorList(int64_t id) const override { return lists_.at(id); }

  void run() {
    startRun();
    for (size_t k = 0; k < plan_->kernels.size(); ++k) callKernel(k);
  }

  Value getOutput(const Args& a) {
    if (a.size() != 1 && a.size() != 2) {
      throw Error(strCat("get_output: expected 1 or 2 arguments (index[, out]), got ", a.size()));
    }
    int64_t id = plan_->outputs[outputPosition(a[0])];
    const GraphTensor& t = plan_->tensors[id];
    if (t.isList()) {
      if (a.size() == 2) {
        throw Error(strCat("get_output: output '", t.name, "' of model '", plan_->model, "' is ",
                           listType(t).str(), "; it cannot be copied into an NDArray"));
      }
      return valueFromList(t.kind, lists_[id]);
    }
    checkPresent("get_output", id);
    const NDArray& result = tensors_[id];
    if (!result.defined()) {
      throw Error(strCat("get_output: output '", plan_->tensors[id].name, "' of model '",
                         plan_->model, "' is sized at run time and has no value before run()"));
    }
    if (a.size() == 1) return Value(tensorCopy(id));
    NDArray out = a[1].asNDArray();
    copyLaidOut(result, t.layout, out, {});
    return Value(out);
  }

  Json info(const std::vector<int64_t>& ids) const {
    Json list = Json::Array{};
    for (int64_t id : ids) {
      const GraphTensor& t = plan_->tensors[id];
      Json entry = tensorInfo(t.name, t.shape, t.dtype);
      if (t.resized()) {  // its free dims' bounds: what a caller may give or read at most
        Json bound = Json::Array{};
        for (int64_t d : t.capacity) bound.push(Json(d));
        entry["max_shape"] = std::move(bound);
      }
      if (t.isList()) {  // SHAPE and DTYPE are its tensors'
        entry["kind"] = valueKindName(t.kind);
        if (t.unranked) entry["unranked"] = true;
      }
      list.push(std::move(entry));
    }
    return list;
  }

  // Checks NAME/ARRAY against the plan; returns the parameter's position.
  size_t checkParam(const char* function, const std::string& name, const NDArray& array) const {
    int64_t p = plan_->paramIndex(name);
    if (p < 0) {
      throw Error(strCat(function, ": model '", plan_->model, "' has no parameter named '", name,
                         "' (its parameters are: ", plan_->paramNames(), ")"));
    }
    const GraphTensor& t = plan_->tensors[plan_->params[p]];
    if (!array.defined()) throw Error(strCat(function, "('", name, "'): parameter is not loaded"));
    if (array.shape() != t.shape || array.dtype() != t.dtype) {
      throw Error(strCat(function, "('", name, "'): expected ", describe(t.shape, t.dtype),
                         ", got ", describe(array.shape(), array.dtype())));
    }
    return static_cast<size_t>(p);
  }

  // New arrays replace the shared ones, so the factory and other executors keep their weights.
  void replaceParams(const Bytes& bytes) {
    ParamList list = runtime::loadParams(bytes.data);
    std::vector<size_t> positions;
    for (const auto& [name, array] : list)
      positions.push_back(checkParam("load_params", name, array));
    for (size_t i = 0; i < list.size(); ++i) tensors_[plan_->params[positions[i]]] = list[i].second;
    bodies_.clear();
    refreshArgs();
  }

  // share_params(other[, bytes]): use OTHER's parameter arrays (only those named in BYTES).
  Value shareParams(const Args& a) {
    if (a.size() != 1 && a.size() != 2) {
      throw Error(
          strCat("share_params: expected 1 or 2 arguments (executor[, params]), got ", a.size()));
    }
    Module otherModule = a[0].asModule();
    auto* other = dynamic_cast<GraphExecutorNode*>(otherModule.node());
    if (!other) {
      throw Error(strCat("share_params: expected a graph_executor module, got '",
                         otherModule.defined() ? otherModule.typeKey() : "null", "'"));
    }
    std::vector<std::string> names;
    if (a.size() == 2) {
      for (const auto& [name, array] : runtime::loadParams(a[1].asBytes().data))
        names.push_back(name);
    } else {
      for (int64_t id : plan_->params) names.push_back(plan_->tensors[id].name);
    }
    std::vector<std::pair<size_t, NDArray>> updates;
    for (const std::string& name : names) {
      int64_t theirs = other->plan_->paramIndex(name);
      if (theirs < 0) {
        throw Error(strCat("share_params: the other executor (model '", other->plan_->model,
                           "') has no parameter named '", name, "'"));
      }
      const NDArray& array = other->tensors_[other->plan_->params[theirs]];
      updates.emplace_back(checkParam("share_params", name, array), array);
    }
    for (auto& [p, array] : updates) tensors_[plan_->params[p]] = array;
    bodies_.clear();
    refreshArgs();
    return Value();
  }

  std::shared_ptr<const GraphPlan> plan_;
  SymbolBinder binder_{plan_->symbols};  // sizes the plan's symbols, once per run
  std::vector<NDArray> storages_;
  std::vector<bool> bound_;        // per storage: a caller's buffer replaces it (zero-copy I/O)
  std::vector<NDArray> tensors_;   // per tensor id: a view into a storage, or a parameter
  std::vector<TensorList> lists_;  // per tensor id of a sequence or optional: its value
  std::vector<void*> args_;        // every kernel's argument pointers, back to back
  std::vector<size_t> argStart_;   // per kernel: where its arguments start in args_
  std::vector<int64_t> resizedTensors_;  // the tensors sized per run by the symbols
  std::vector<bool> inputSet_;           // per input: given since the executor was made
  Shape runShape_ = Shape(8);            // a resized tensor's shape this run (kept: no allocation)
  std::map<int64_t, NDArray> runTimeBuffers_;  // per run-time sized tensor: its memory so far
  std::map<std::pair<size_t, size_t>, NDArray> scratch_;  // (kernel, output): omitted outputs
  // (kernel, body): control-flow bodies, made on first use; dropped when the weights change.
  std::map<std::pair<size_t, size_t>, std::unique_ptr<Body>> bodies_;
  size_t missingParams_ = 0;
  bool ran_ = false;  // whether the outputs hold a run's values
  // Per storage: a cache whose past was written since the last run, so its present no longer
  // holds that run's rows.
  std::vector<bool> overwritten_;
};

}  // namespace

Module makeGraphExecutor(std::shared_ptr<const GraphPlan> plan, const GraphParams& params,
                         Device device, GraphKernelRunner** runner) {
  auto node = std::make_shared<GraphExecutorNode>(std::move(plan), params, device);
  if (runner) *runner = node.get();
  return Module(node);
}

}  // namespace kiln::runtime
