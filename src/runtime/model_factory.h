// The factory module every executor kind shares: one model's weights (shared read-only by every
// executor it creates) and the functions that swap them, around the kind's own constructor.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/module.h"
#include "model_weights.h"

namespace kiln::runtime {

struct FactorySpec {
  std::string typeKey;  // "graph_factory", "aot_factory"
  std::string model;
  std::vector<ParamSpec> params;
  uint64_t paramsChecksum = 0;  // of the weights the model was compiled with
  // Creates an executor over PARAMS (one per spec, undefined where not loaded) on DEVICE.
  std::function<Module(const std::vector<NDArray>& params, Device device)> create;
  // The same for the debug executor; empty when the kind has none.
  std::function<Module(const std::vector<NDArray>& params, Device device)> createDebug;
};

// A factory with `create(device)` (also under the model's name), `debug_create(device)`,
// `get_params`, `remove_params`,
// `load_params(bytes)`, `load_params_file(path)` and `list_models`.
Module makeModelFactory(std::shared_ptr<const FactorySpec> spec, std::vector<NDArray> params);

// The weights embedded in MODEL, bound to SPEC's parameters (errors name the model).
std::vector<NDArray> embeddedParams(const FactorySpec& spec,
                                    const std::shared_ptr<SharedLibrary>& library,
                                    const ArtifactModel& model);

}  // namespace kiln::runtime
