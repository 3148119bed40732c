// The graph executor's validated view of its metadata, shared read-only by a model's factory and
// all its executors, so kernels are resolved and the plan is checked once per model.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/backend_api.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/shared_library.h"

namespace kiln::runtime {

struct GraphTensor {
  std::string name;
  Shape shape;
  DataType dtype;
  int64_t storage = -1;  // -1: a parameter
  size_t offset = 0;
  size_t nbytes = 0;
};

struct GraphKernel {
  std::string name;
  std::string symbol;
  KilnKernelFn fn = nullptr;
  std::vector<int64_t> args;  // tensor ids
};

struct GraphPlan {
  std::string model;
  std::shared_ptr<SharedLibrary> library;  // keeps the kernels' code mapped
  std::vector<size_t> storageSizes;
  std::vector<GraphTensor> tensors;
  std::vector<int64_t> inputs;
  std::vector<int64_t> outputs;
  std::vector<int64_t> params;
  std::vector<GraphKernel> kernels;
  size_t totalArgs = 0;

  // Position in `params` / `inputs` of the tensor named NAME, or -1.
  int64_t paramIndex(const std::string& name) const;
  int64_t inputIndex(const std::string& name) const;
  std::string paramNames() const;  // "w1, w2, ..." for error messages
  std::string inputNames() const;
};

// Validates METADATA (schema in graph_executor.h) and resolves every kernel symbol in LIBRARY;
// throws kiln::Error naming MODEL and the offending field.
std::shared_ptr<const GraphPlan> parseGraphPlan(const Json& metadata,
                                                std::shared_ptr<SharedLibrary> library,
                                                const std::string& model);

// One array per plan.params entry, shared read-only between a factory and its executors; an
// undefined array is a parameter still to be loaded.
using GraphParams = std::vector<NDArray>;

// An executor module (typeKey "graph_executor") with its storages allocated on DEVICE.
Module makeGraphExecutor(std::shared_ptr<const GraphPlan> plan, const GraphParams& params,
                         Device device);

}  // namespace kiln::runtime
