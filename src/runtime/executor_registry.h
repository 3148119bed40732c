// The runtime's executor kinds by name: the artifact says which kind each model was compiled for,
// and the loader asks this table for the factory constructor. Adding a kind is a file with its
// factory and one line in executor_registry.cc.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/artifact.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/shared_library.h"
#include "offload_runtimes.h"

namespace kiln::runtime {

// Builds the factory module of one model: validates its metadata against LIBRARY (resolving
// symbols) and binds its embedded weights.
using FactoryConstructor = Module (*)(const std::shared_ptr<SharedLibrary>& library,
                                      const ArtifactModel& model, OffloadRuntimes* offloads);

struct ExecutorKind {
  const char* name;
  FactoryConstructor makeFactory;
};

const std::vector<ExecutorKind>& executorKinds();

// The factory for MODEL; throws kiln::Error naming the executor and the kinds this runtime knows.
// OFFLOADS finds the runtimes of the backends its kernels are offloaded to.
Module makeFactory(const std::shared_ptr<SharedLibrary>& library, const ArtifactModel& model,
                   OffloadRuntimes& offloads);

}  // namespace kiln::runtime
