// Control flow in a compiled model: the bodies of If, Loop and Scan nodes are compiled like
// models of their own (passes, kernels in the same library, a memory plan), and the graph
// executor runs each body's plan from the node's runtime op (kiln/runtime/runtime_op.h).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kiln/driver/pipeline.h"
#include "kiln/ir/graph.h"
#include "kiln/kernel/lower.h"
#include "kiln/kernel/schedule.h"
#include "kiln/support/json.h"

namespace kiln::driver {

class KernelPool;

struct BodyCompileContext {
  std::string model;  // kernel symbols are kiln_<model>__b<N>_<group>
  std::vector<ir::Pass> passes;
  const kernel::ScheduleConfig& config;
  KernelPool& pool;
  int next = 0;                                     // the next body's number, unique in the model
  std::vector<kernel::LoweredKernel> kernels = {};  // every body's, for --dump-ir
};

// What a control-flow node's kernel carries (kernel::KernelRuntimeOp::formalInputs and bodies).
struct CompiledBodies {
  int64_t formalInputs = 0;
  Json bodies;
};

// Compiles the bodies of GRAPH's control-flow nodes (and the bodies nested in them), adding their
// kernels to CONTEXT's pool. Each body's weights become constants of GRAPH that its node takes
// as extra inputs (`kiln.hoisted`), so every weight of a model is a parameter of its top graph.
std::map<const ir::Node*, CompiledBodies> compileBodies(ir::Graph& graph,
                                                        BodyCompileContext& context);

}  // namespace kiln::driver
