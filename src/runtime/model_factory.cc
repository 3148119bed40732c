// One factory for every executor kind, so weights are handled (and checked) the same way
// whichever executor a model was compiled for.
#include "model_factory.h"

#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

class ModelFactoryNode final : public ModuleNode {
 public:
  ModelFactoryNode(std::shared_ptr<const FactorySpec> spec, std::vector<NDArray> params)
      : spec_(std::move(spec)), params_(std::move(params)) {}

  const char* typeKey() const override { return spec_->typeKey.c_str(); }

  PackedFunc getFunction(const std::string& name) override {
    auto self = std::static_pointer_cast<ModelFactoryNode>(shared_from_this());
    if (name == "create" || name == spec_->model) {
      return PackedFunc([self](const Args& a) {
        checkArgCount("create", a, 1);
        return Value(self->spec_->create(self->params_, a[0].asDevice()));
      });
    }
    if (name == "debug_create") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("debug_create", a, 1);
        if (!self->spec_->createDebug) {
          throw Error(
              strCat("debug_create: model '", self->spec_->model, "' was compiled for ",
                     self->spec_->typeKey == "aot_factory" ? "the aot executor" : "an executor",
                     ", which has no per-kernel metadata to time; compile it with "
                     "--executor graph to profile it"));
        }
        return Value(self->spec_->createDebug(self->params_, a[0].asDevice()));
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
        return Value(self->withParams(std::vector<NDArray>(self->params_.size())));
      });
    }
    if (name == "load_params") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("load_params", a, 1);
        ParamList list = loadParams(a[0].asBytes().data);
        return Value(self->withParams(
            bindParams(self->spec_->params, list, self->spec_->model, "load_params")));
      });
    }
    if (name == "load_params_file") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("load_params_file", a, 1);
        ParamList list =
            weightsFile(a[0].asString(), self->spec_->model, self->spec_->paramsChecksum);
        return Value(self->withParams(
            bindParams(self->spec_->params, list, self->spec_->model, "load_params_file")));
      });
    }
    if (name == "list_models") {
      return PackedFunc([self](const Args& a) {
        checkArgCount("list_models", a, 0);
        return Value(Json(Json::Array{Json(self->spec_->model)}));
      });
    }
    return {};
  }

  std::vector<std::string> functionNames() const override {
    return {"create",        spec_->model,  "debug_create",     "get_params",
            "remove_params", "load_params", "load_params_file", "list_models"};
  }

 private:
  // A factory over the same model with other weights; this one keeps its own.
  Module withParams(std::vector<NDArray> params) const {
    return Module(std::make_shared<ModelFactoryNode>(spec_, std::move(params)));
  }

  ParamList loadedParams() const {
    ParamList list;
    for (size_t p = 0; p < params_.size(); ++p) {
      if (params_[p].defined()) list.emplace_back(spec_->params[p].name, params_[p]);
    }
    return list;
  }

  std::shared_ptr<const FactorySpec> spec_;
  std::vector<NDArray> params_;
};

}  // namespace

Module makeModelFactory(std::shared_ptr<const FactorySpec> spec, std::vector<NDArray> params) {
  return Module(std::make_shared<ModelFactoryNode>(std::move(spec), std::move(params)));
}

std::vector<NDArray> embeddedParams(const FactorySpec& spec,
                                    const std::shared_ptr<SharedLibrary>& library,
                                    const ArtifactModel& model) {
  try {
    return bindParams(spec.params, embeddedWeights(library, model), model.name,
                      "loading the weights");
  } catch (const Error& e) {
    throw Error(strCat("model '", model.name, "': invalid weights: ", e.what()));
  }
}

}  // namespace kiln::runtime
