// The graph factory module: one per model of a loaded library. It owns the validated plan and the
// weights (parsed once), and hands both, read-only, to every executor it creates.
#include "graph_plan.h"
#include "kiln/runtime/graph_executor.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

namespace {

GraphParams readWeights(const GraphPlan& plan, const std::string& blob) {
  GraphParams params(plan.params.size());
  if (blob.empty()) return params;  // weights shipped separately: executors need load_params
  ParamList list;
  try {
    list = loadParams(blob);
  } catch (const Error& e) {
    throw Error(strCat("model '", plan.model, "': invalid weights: ", e.what()));
  }
  for (auto& [name, array] : list) {
    int64_t p = plan.paramIndex(name);
    if (p < 0) {
      throw Error(strCat("model '", plan.model, "': the weights hold '", name,
                         "', which is not a parameter of the model (its parameters are: ",
                         plan.paramNames(), ")"));
    }
    const GraphTensor& t = plan.tensors[plan.params[p]];
    if (array.shape() != t.shape || array.dtype() != t.dtype) {
      throw Error(strCat("model '", plan.model, "': weight '", name, "' is ", array.dtype().str(),
                         shapeStr(array.shape()), " but the graph expects ", t.dtype.str(),
                         shapeStr(t.shape)));
    }
    params[p] = std::move(array);
  }
  return params;
}

class GraphFactoryNode final : public ModuleNode {
 public:
  GraphFactoryNode(std::shared_ptr<const GraphPlan> plan, GraphParams params)
      : plan_(std::move(plan)), params_(std::move(params)) {}

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
        GraphParams none(self->params_.size());
        return Value(Module(std::make_shared<GraphFactoryNode>(self->plan_, std::move(none))));
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
    return {"create", plan_->model, "get_params", "remove_params", "list_models"};
  }

 private:
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
};

}  // namespace

Module makeGraphFactory(std::shared_ptr<SharedLibrary> library, const ArtifactModel& model) {
  auto plan = parseGraphPlan(model.metadata, std::move(library), model.name);
  GraphParams params = readWeights(*plan, model.params);
  return Module(std::make_shared<GraphFactoryNode>(std::move(plan), std::move(params)));
}

}  // namespace kiln::runtime
