// The graph executor's factory: the model's validated plan (kernels resolved once) around the
// shared factory module; the debug executor's maker, registered by libkiln_runtime_debug.
#include <atomic>

#include "companion_library.h"
#include "graph_plan.h"
#include "kiln/runtime/graph_executor.h"
#include "kiln/support/error.h"
#include "model_factory.h"

namespace kiln::runtime {
namespace {

std::atomic<DebugExecutorMaker> gDebugMaker{nullptr};

}  // namespace

void registerDebugExecutor(DebugExecutorMaker maker) {
  gDebugMaker.store(maker, std::memory_order_release);
}

Module makeDebugExecutor(std::shared_ptr<const GraphPlan> plan, const GraphParams& params,
                         Device device) {
  DebugExecutorMaker make = gDebugMaker.load(std::memory_order_acquire);
  if (make == nullptr) {
    const std::string& why = loadCompanionLibrary(kDebugLibrary);
    make = gDebugMaker.load(std::memory_order_acquire);
    if (make == nullptr) {
      throw Error(strCat("debug_create: the debug executor is in ", kDebugLibrary,
                         ", which is not here: ", why.empty() ? "it registered nothing" : why,
                         "; install it beside libkiln_runtime.so"));
    }
  }
  return make(std::move(plan), params, device);
}

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
