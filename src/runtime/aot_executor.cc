// The AOT executor module: one model instance whose run() is a single call of the generated entry
// function over the executor's input, output, parameter and workspace pointers.
#include "kiln/runtime/aot_executor.h"

#include <map>

#include "aot_plan.h"
#include "executor_util.h"
#include "kernel_status.h"
#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

Json info(const std::vector<ParamSpec>& specs) {
  Json list = Json::Array{};
  for (const ParamSpec& s : specs) list.push(tensorInfo(s.name, s.shape, s.dtype));
  return list;
}

std::string names(const std::vector<ParamSpec>& specs) {
  std::string s;
  for (const ParamSpec& p : specs) s += (s.empty() ? "" : ", ") + p.name;
  return s.empty() ? "none" : s;
}

class AotExecutorNode final : public ModuleNode {
 public:
  AotExecutorNode(std::shared_ptr<const AotPlan> plan, const std::vector<NDArray>& params,
                  Device device)
      : plan_(std::move(plan)), params_(params) {
    if (device.type != kDLCPU) {
      throw Error(
          strCat("model '", plan_->model, "': the aot executor runs on cpu, got ", device.str()));
    }
    for (const ParamSpec& s : plan_->inputs) inputs_.push_back(NDArray::empty(s.shape, s.dtype));
    for (const ParamSpec& s : plan_->outputs) outputs_.push_back(NDArray::empty(s.shape, s.dtype));
    ownInputs_ = inputs_;
    workspace_ = NDArray::empty({static_cast<int64_t>(plan_->workspaceBytes)}, DataType::uint8());
    refreshPointers();
  }

  const char* typeKey() const override { return "aot_executor"; }

  PackedFunc getFunction(const std::string& name) override {
    auto it = functions().find(name);
    if (it == functions().end()) return {};
    auto self = std::static_pointer_cast<AotExecutorNode>(shared_from_this());
    Method method = it->second;
    return PackedFunc([self, method](const Args& args) { return method(*self, args); });
  }

  std::vector<std::string> functionNames() const override {
    std::vector<std::string> list;
    for (const auto& [name, method] : functions()) list.push_back(name);
    return list;
  }

 private:
  using Method = Value (*)(AotExecutorNode&, const Args&);
  using N = AotExecutorNode;

  static const std::map<std::string, Method>& functions() {
    static const std::map<std::string, Method> kTable = {
        {"set_input", [](N& n, const Args& a) { return n.setInput(a); }},
        {"get_input",
         [](N& n, const Args& a) {
           checkArgCount("get_input", a, 1);
           return Value(n.inputs_[n.inputPosition("get_input", a[0])].clone());
         }},
        {"set_input_zero_copy",
         [](N& n, const Args& a) {
           checkArgCount("set_input_zero_copy", a, 2);
           size_t pos = n.inputPosition("set_input_zero_copy", a[0]);
           n.inputs_[pos] =
               n.checkBuffer("set_input_zero_copy", n.plan_->inputs[pos], a[1].asNDArray(), false);
           n.refreshPointers();
           return Value();
         }},
        {"set_output_zero_copy",
         [](N& n, const Args& a) {
           checkArgCount("set_output_zero_copy", a, 2);
           size_t pos = n.outputPosition(a[0]);
           n.outputs_[pos] =
               n.checkBuffer("set_output_zero_copy", n.plan_->outputs[pos], a[1].asNDArray(), true);
           n.refreshPointers();
           return Value();
         }},
        {"run",
         [](N& n, const Args& a) {
           checkArgCount("run", a, 0);
           n.run();
           return Value();
         }},
        {"get_output", [](N& n, const Args& a) { return n.getOutput(a); }},
        {"get_num_inputs",
         [](N& n, const Args& a) {
           checkArgCount("get_num_inputs", a, 0);
           return Value(static_cast<int64_t>(n.plan_->inputs.size()));
         }},
        {"get_num_outputs",
         [](N& n, const Args& a) {
           checkArgCount("get_num_outputs", a, 0);
           return Value(static_cast<int64_t>(n.plan_->outputs.size()));
         }},
        {"get_input_index",
         [](N& n, const Args& a) {
           checkArgCount("get_input_index", a, 1);
           return Value(n.indexOf(n.plan_->inputs, a[0].asString()));
         }},
        {"get_input_info",
         [](N& n, const Args& a) {
           checkArgCount("get_input_info", a, 0);
           return Value(info(n.plan_->inputs));
         }},
        {"get_output_info",
         [](N& n, const Args& a) {
           checkArgCount("get_output_info", a, 0);
           return Value(info(n.plan_->outputs));
         }},
        {"load_params",
         [](N& n, const Args& a) {
           checkArgCount("load_params", a, 1);
           n.loadParams(a[0].asBytes());
           return Value();
         }},
        {"share_params", [](N& n, const Args& a) { return n.shareParams(a); }},
    };
    return kTable;
  }

  static int64_t indexOf(const std::vector<ParamSpec>& specs, const std::string& name) {
    for (size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].name == name) return static_cast<int64_t>(i);
    }
    return -1;
  }

  void refreshPointers() {
    inputPtrs_.clear();
    outputPtrs_.clear();
    paramPtrs_.clear();
    for (const NDArray& a : inputs_) inputPtrs_.push_back(a.data());
    for (const NDArray& a : outputs_) outputPtrs_.push_back(a.data());
    for (const NDArray& a : params_) paramPtrs_.push_back(a.defined() ? a.data() : nullptr);
  }

  size_t inputPosition(const char* function, const Value& which) const {
    return runtime::inputPosition(
        function, which, plan_->model, plan_->inputs.size(),
        [this](const std::string& name) { return indexOf(plan_->inputs, name); },
        [this] { return names(plan_->inputs); });
  }

  size_t outputPosition(const Value& which) const {
    return runtime::outputPosition("get_output", which, plan_->model, plan_->outputs.size());
  }

  static NDArray checkBuffer(const char* function, const ParamSpec& spec, const NDArray& buffer,
                             bool written) {
    checkBindable(function, spec.name, spec.shape, spec.dtype, buffer, written);
    return buffer;
  }

  Value setInput(const Args& a) {
    checkArgCount("set_input", a, 2);
    size_t pos = inputPosition("set_input", a[0]);
    const ParamSpec& s = plan_->inputs[pos];
    const NDArray& value = a[1].asNDArray();
    if (value.shape() != s.shape || value.dtype() != s.dtype) {
      throw Error(strCat("set_input('", s.name, "'): expected ", describe(s.shape, s.dtype),
                         ", got ", describe(value.shape(), value.dtype())));
    }
    if (!inputs_[pos].sameAs(ownInputs_[pos])) {  // unbind a zero-copy input
      inputs_[pos] = ownInputs_[pos];
      refreshPointers();
    }
    inputs_[pos].copyFrom(value);
    return Value();
  }

  void run() {
    for (size_t p = 0; p < params_.size(); ++p) {
      if (params_[p].defined()) continue;
      std::string missing;
      for (size_t q = p; q < params_.size(); ++q) {
        if (!params_[q].defined()) missing += (missing.empty() ? "" : ", ") + plan_->params[q].name;
      }
      throw Error(strCat("run(): model '", plan_->model,
                         "': parameters not loaded (missing: ", missing,
                         "); the weights ship separately: load them with load_params or the "
                         "factory's load_params_file (kiln run: --params FILE)"));
    }
    int32_t status =
        plan_->entry(inputPtrs_.data(), outputPtrs_.data(), paramPtrs_.data(), workspace_.data());
    if (status != 0) {
      throw Error(strCat("run(): model '", plan_->model,
                         "': a kernel stopped: ", kernelStatusText(status)));
    }
  }

  Value getOutput(const Args& a) {
    if (a.size() != 1 && a.size() != 2) {
      throw Error(strCat("get_output: expected 1 or 2 arguments (index[, out]), got ", a.size()));
    }
    const NDArray& result = outputs_[outputPosition(a[0])];
    if (a.size() == 1) return Value(result.clone());
    NDArray out = a[1].asNDArray();
    out.copyFrom(result);
    return Value(out);
  }

  // New arrays replace the shared ones, so the factory and other executors keep their weights.
  void loadParams(const Bytes& bytes) {
    ParamList list = runtime::loadParams(bytes.data);
    std::vector<NDArray> bound = bindParams(plan_->params, list, plan_->model, "load_params");
    for (size_t p = 0; p < bound.size(); ++p) {
      if (bound[p].defined()) params_[p] = bound[p];
    }
    refreshPointers();
  }

  // share_params(other): use OTHER's parameter arrays (both AOT executors of the same model).
  Value shareParams(const Args& a) {
    checkArgCount("share_params", a, 1);
    Module otherModule = a[0].asModule();
    auto* other = dynamic_cast<AotExecutorNode*>(otherModule.node());
    if (!other || other->plan_->entry != plan_->entry) {
      throw Error(strCat("share_params: expected an aot_executor of model '", plan_->model,
                         "', got '", otherModule.defined() ? otherModule.typeKey() : "null", "'"));
    }
    params_ = other->params_;
    refreshPointers();
    return Value();
  }

  std::shared_ptr<const AotPlan> plan_;
  std::vector<NDArray> params_;
  std::vector<NDArray> inputs_, ownInputs_, outputs_;
  NDArray workspace_;
  std::vector<void*> inputPtrs_, outputPtrs_, paramPtrs_;
};

}  // namespace

Module makeAotExecutor(std::shared_ptr<const AotPlan> plan, const std::vector<NDArray>& params,
                       Device device) {
  return Module(std::make_shared<AotExecutorNode>(std::move(plan), params, device));
}

}  // namespace kiln::runtime
