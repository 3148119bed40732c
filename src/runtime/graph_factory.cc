// The graph factory module: one per model of a loaded library. It owns the validated plan and the
// weights (views of the library's mapping), and hands both, read-only, to every executor it
// creates, so each extra executor costs only its working memory.
#include "graph_plan.h"
#include "kiln/runtime/graph_executor.h"
#include "kiln/support/error.h"
#include "model_weights.h"

namespace kiln::runtime {

namespace {

std::vector<ParamSpec> paramSpecs(const GraphPlan& plan) {
  std::vector<ParamSpec> specs;
  for (int64_t id : plan.params) {
    const GraphTensor& t = plan.tensors[id];
    specs.push_back({t.name, t.shape, t.dtype});
  }
  return specs;
}

class GraphFactoryNode final : public ModuleNode {
 public:
  GraphFactoryNode(std::shared_ptr<const GraphPlan> plan, GraphParams params,
                   uint64_t paramsChecksum)
      : plan_(std::move(plan)), params_(std::move(params)), paramsChecksum_(paramsChecksum) {}

  const char* typeKey() const override { return "graph_factory"; }

  PackedFunc getFunction(const std::string& name) override {
    auto self = std::static_pointer_cast<GraphFactoryNode>(shared_from_this());
    if (name == "create" || name == plan_->model) {
      return PackedFunc([self](const Args& a) {
        checkArgCount("create", a, 1);
        return Value(makeGraphExecutor(self->plan_, self->params_, a[0].asDevice()));
      });
    }
    if (name == "get_params") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("get_params", a, 0);
        return Value(Bytes{saveParams(self->loadedParams())});
      });
    }
    if (name == "remove_params") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("remove_params", a, 0);
        return Value(self->withParams(GraphParams(self->params_.size())));
      });
    }
    if (name == "load_params") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("load_params", a, 1);
        ParamList list = loadParams(a[0].asBytes().data);
        return Value(self->withParams(
            bindParams(paramSpecs(*self->plan_), list, self->plan_->model, "load_params")));
      });
    }
    if (name == "load_params_file") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("load_params_file", a, 1);
        ParamList list = weightsFile(a[0].asString(), self->plan_->model, self->paramsChecksum_);
        return Value(self->withParams(
            bindParams(paramSpecs(*self->plan_), list, self->plan_->model, "load_params_file")));
      });
    }
    if (name == "list_models") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("list_models", a, 0);
        return Value(Json(Json::Array{Json(self->plan_->model)}));
      });
    }
    return {};
  }

  std::vector<std::string> functionNames() const override {
    return {"create",      plan_->model,       "get_params", "remove_params",
            "load_params", "load_params_file", "list_models"};
  }

 private:
  // A factory over the same plan with other weights; this one keeps its own.
  Module withParams(GraphParams params) const {
    return Module(std::make_shared<GraphFactoryNode>(plan_, std::move(params), paramsChecksum_));
  }

  ParamList loadedParams() const {
    ParamList list;
    for (size_t p = 0; p < params_.size(); ++p) {
      if (params_[p].defined())
        list.emplace_back(plan_->tensors[plan_->params[p]].name, params_[p]);
    }
    return list;
  }

  std::shared_ptr<const GraphPlan> plan_;
  GraphParams params_;
  uint64_t paramsChecksum_;
};

}  // namespace

Module makeGraphFactory(const std::shared_ptr<SharedLibrary>& library, const ArtifactModel& model) {
  auto plan = parseGraphPlan(model.metadata, library, model.name);
  GraphParams params;
  try {
    params = bindParams(paramSpecs(*plan), embeddedWeights(library, model), model.name,
                        "loading the weights");
  } catch (const Error& e) {
    throw Error(strCat("model '", model.name, "': invalid weights: ", e.what()));
  }
  return Module(
      std::make_shared<GraphFactoryNode>(std::move(plan), std::move(params), model.paramsChecksum));
}

}  // namespace kiln::runtime
