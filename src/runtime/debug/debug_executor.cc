// The debug executor: a graph executor that can also run kernel by kernel, timing each and keeping
// a copy of each kernel's outputs, for profiles, traces and per-node output dumps. Everything else
// is the graph executor's own functions.
#include <chrono>

#include "../executor_util.h"
#include "../graph_plan.h"
#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

class DebugExecutorNode final : public ModuleNode {
 public:
  DebugExecutorNode(std::shared_ptr<const GraphPlan> plan, const GraphParams& params, Device device)
      : plan_(std::move(plan)) {
    graph_ = makeGraphExecutor(plan_, params, device, &runner_);
  }

  const char* typeKey() const override { return "debug_executor"; }

  PackedFunc getFunction(const std::string& name) override {
    auto self = std::static_pointer_cast<DebugExecutorNode>(shared_from_this());
    if (name == "profile") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("profile", a, 1);
        return Value(self->profile(a[0].asInt() != 0));
      });
    }
    if (name == "get_node_output") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("get_node_output", a, 2);
        return self->nodeOutput(a[0].asInt(), a[1].asInt());
      });
    }
    PackedFunc f = graph_.getFunction(name);
    if (!f) return {};
    // The graph executor's function, keeping this module (and so the graph executor) alive.
    return PackedFunc([self, f](const Args& a) { return f.callPacked(a); });
  }

  std::vector<std::string> functionNames() const override {
    std::vector<std::string> names = graph_.node()->functionNames();
    names.emplace_back("profile");
    names.emplace_back("get_node_output");
    return names;
  }

 private:
  // One run, kernel by kernel: per kernel its name, fused ops, start and duration in µs from the
  // run's start, estimated flops and output tensors (a sequence or optional also with its "kind"
  // and "count", its number of tensors, -1 for none).
  Json profile(bool keepOutputs) {
    runner_->startRun();
    using Clock = std::chrono::steady_clock;
    if (keepOutputs) outputs_.assign(plan_->kernels.size(), {});
    Json rows = Json::Array{};
    Clock::time_point start = Clock::now();
    for (size_t k = 0; k < plan_->kernels.size(); ++k) {
      Clock::time_point before = Clock::now();
      runner_->callKernel(k);
      Clock::time_point after = Clock::now();
      const GraphKernel& kernel = plan_->kernels[k];
      Json row;
      row["name"] = kernel.name;
      Json ops = Json::Array{};
      for (const std::string& op : kernel.ops) ops.push(Json(op));
      row["ops"] = std::move(ops);
      row["start_us"] = std::chrono::duration<double, std::micro>(before - start).count();
      row["us"] = std::chrono::duration<double, std::micro>(after - before).count();
      row["flops"] = kernel.flops;
      Json outs = Json::Array{};
      for (size_t j = kernel.args.size() - kernel.numOutputs; j < kernel.args.size(); ++j) {
        if (kernel.args[j] < 0) continue;  // an output the model omits
        const GraphTensor& t = plan_->tensors[kernel.args[j]];
        if (t.isList()) {
          const TensorList& list = runner_->tensorList(kernel.args[j]);
          Json info = tensorInfo(t.name, t.shape, t.dtype);
          info["kind"] = valueKindName(t.kind);
          info["count"] = list.none ? int64_t{-1} : static_cast<int64_t>(list.items.size());
          outs.push(std::move(info));
          // A list's tensors are never written once in it, so sharing them is a copy.
          if (keepOutputs) outputs_[k].push_back(listToValue(list, t.kind));
          continue;
        }
        const NDArray& array = runner_->tensorArray(kernel.args[j]);
        // A run-time sized or symbolic output is shown with the shape this run gave it.
        bool sized = t.dynamic() || t.resized();
        outs.push(tensorInfo(t.name, sized ? array.shape() : t.shape, t.dtype));
        // Copied now: later kernels may reuse the storage.
        if (keepOutputs) outputs_[k].push_back(Value(runner_->tensorCopy(kernel.args[j])));
      }
      row["outputs"] = std::move(outs);
      rows.push(std::move(row));
    }
    return rows;
  }

  Value nodeOutput(int64_t k, int64_t j) const {
    if (k < 0 || static_cast<size_t>(k) >= outputs_.size()) {
      throw Error(strCat("get_node_output: kernel ", k, " has no kept outputs (",
                         outputs_.empty() ? "call profile(1) first"
                                          : strCat(outputs_.size(), " kernels were kept"),
                         ")"));
    }
    if (j < 0 || static_cast<size_t>(j) >= outputs_[k].size()) {
      throw Error(strCat("get_node_output: kernel ", k, " ('", plan_->kernels[k].name, "') has ",
                         outputs_[k].size(), " outputs, not ", j + 1));
    }
    return outputs_[k][j];
  }

  std::shared_ptr<const GraphPlan> plan_;
  Module graph_;
  GraphKernelRunner* runner_ = nullptr;  // graph_'s, alive as long as graph_
  std::vector<std::vector<Value>> outputs_;
};

Module makeDebugExecutorNode(std::shared_ptr<const GraphPlan> plan, const GraphParams& params,
                             Device device) {
  return Module(std::make_shared<DebugExecutorNode>(std::move(plan), params, device));
}

// Registered when the library loads: linked into a program, or loaded by the core on first use.
const bool kRegistered = [] {
  registerDebugExecutor(makeDebugExecutorNode);
  return true;
}();

}  // namespace
}  // namespace kiln::runtime
