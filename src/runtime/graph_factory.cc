// The graph executor's factory: the model's validated plan (kernels resolved once) around the
// shared factory module.
#include "graph_plan.h"
#include "kiln/runtime/graph_executor.h"
#include "model_factory.h"

namespace kiln::runtime {

Module makeGraphFactory(const std::shared_ptr<SharedLibrary>& library, const ArtifactModel& model,
                        OffloadRuntimes* offloads) {
  std::shared_ptr<const GraphPlan> plan =
      parseGraphPlan(model.metadata, library, model.name, offloads);
  auto spec = std::make_shared<FactorySpec>();
  spec->typeKey = "graph_factory";
  spec->model = model.name;
  spec->paramsChecksum = model.paramsChecksum;
  for (int64_t id : plan->params) {
    const GraphTensor& t = plan->tensors[id];
    spec->params.push_back({t.name, t.shape, t.dtype});
  }
  spec->create = [plan](const std::vector<NDArray>& params, Device device) {
    return makeGraphExecutor(plan, params, device);
  };
  spec->createDebug = [plan](const std::vector<NDArray>& params, Device device) {
    return makeDebugExecutor(plan, params, device);
  };
  std::vector<NDArray> params = embeddedParams(*spec, library, model);
  return makeModelFactory(std::move(spec), std::move(params));
}

}  // namespace kiln::runtime
