// The AOT executor's validated view of its metadata, shared by a model's factory and executors.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/module.h"
#include "kiln/support/json.h"
#include "model_weights.h"

namespace kiln::runtime {

using AotEntryFn = int32_t (*)(void* const* inputs, void* const* outputs, void* const* params,
                               void* workspace);

struct AotPlan {
  std::string model;
  std::shared_ptr<SharedLibrary> library;  // keeps the code mapped
  AotEntryFn entry = nullptr;
  std::string entrySymbol;
  size_t workspaceBytes = 0;
  std::vector<ParamSpec> inputs, outputs, params;
};

// Validates METADATA (schema in aot_executor.h) and resolves the entry symbol in LIBRARY; throws
// kiln::Error naming MODEL and the field.
std::shared_ptr<const AotPlan> parseAotPlan(const Json& metadata,
                                            const std::shared_ptr<SharedLibrary>& library,
                                            const std::string& model);

// An executor module (typeKey "aot_executor") with its buffers allocated on DEVICE.
Module makeAotExecutor(std::shared_ptr<const AotPlan> plan, const std::vector<NDArray>& params,
                       Device device);

}  // namespace kiln::runtime
