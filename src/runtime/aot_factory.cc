// The AOT executor's factory: the model's validated entry around the shared factory module.
#include "aot_plan.h"
#include "kiln/runtime/aot_executor.h"
#include "model_factory.h"

namespace kiln::runtime {

Module makeAotFactory(const std::shared_ptr<SharedLibrary>& library, const ArtifactModel& model,
                      OffloadRuntimes* /*offloads*/) {
  std::shared_ptr<const AotPlan> plan = parseAotPlan(model.metadata, library, model.name);
  auto spec = std::make_shared<FactorySpec>();
  spec->typeKey = "aot_factory";
  spec->model = model.name;
  spec->paramsChecksum = model.paramsChecksum;
  spec->params = plan->params;
  spec->create = [plan](const std::vector<NDArray>& params, Device device) {
    return makeAotExecutor(plan, params, device);
  };
  std::vector<NDArray> params = embeddedParams(*spec, library, model);
  return makeModelFactory(std::move(spec), std::move(params));
}

}  // namespace kiln::runtime
