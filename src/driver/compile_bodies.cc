// Compiles control-flow bodies depth first: passes, nested bodies, kernels, memory plan and graph
// executor metadata per body; the body's weights move to its node as extra inputs.
#include "kiln/driver/compile_bodies.h"

#include "kiln/driver/graph_metadata.h"
#include "kiln/driver/kernel_pool.h"
#include "kiln/driver/materialize_outputs.h"
#include "kiln/ir/control_flow.h"
#include "kiln/ir/fused_group.h"
#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "kiln/transform/plan_memory.h"

namespace kiln::driver {
namespace {

Json indexList(size_t first, size_t count) {
  Json list = Json(Json::Array{});
  for (size_t i = 0; i < count; ++i) list.push(Json(static_cast<int64_t>(first + i)));
  return list;
}

// BODY as a graph executor's metadata and weights, its kernels added to the pool.
GraphExecutorModel compileBody(ir::Graph& body, BodyCompileContext& context) {
  std::vector<std::string> outputNames;
  for (const ir::Value* v : body.outputs()) outputNames.push_back(v->name);
  ir::runPasses(body, context.passes, "");
  std::map<const ir::Node*, CompiledBodies> nested = compileBodies(body, context);
  materializeOutputs(body);
  std::vector<ir::FusedGroup> groups = ir::collectGroups(body);
  std::string prefix = strCat("kiln_", context.model, "__b", context.next++, "_");
  std::vector<kernel::LoweredKernel> kernels;
  kernels.reserve(groups.size());
  for (const ir::FusedGroup& group : groups) {
    kernels.push_back(kernel::lowerGroup(group, prefix + group.name, context.config));
    kernel::LoweredKernel& k = kernels.back();
    if (k.object || k.offload) {
      throw Error(strCat("kernel '", group.name, "' of a control-flow body is an extension's; ",
                         "kiln offloads only the main graph"));
    }
    if (!k.runtimeOp) {
      context.pool.add(k);
    } else if (auto it = nested.find(group.nodes.front()); it != nested.end()) {
      k.runtimeOp->formalInputs = it->second.formalInputs;
      k.runtimeOp->bodies = it->second.bodies;
    }
  }
  transform::MemoryPlan plan = transform::planMemory(body, groups);
  context.kernels.insert(context.kernels.end(), kernels.begin(), kernels.end());
  return buildGraphMetadata(body, groups, kernels, plan, outputNames);
}

}  // namespace

std::map<const ir::Node*, CompiledBodies> compileBodies(ir::Graph& graph,
                                                        BodyCompileContext& context) {
  std::map<const ir::Node*, CompiledBodies> out;
  std::vector<ir::Node*> nodes = graph.nodes();
  for (ir::Node* node : nodes) {
    if (!ir::hasSubgraphs(*node)) continue;
    KILN_CHECK(!node->attrs.has("kiln.hoisted"), ir::nodeLabel(*node), " is compiled twice");
    size_t formal = ir::formalInputCount(*node);
    auto captured = static_cast<size_t>(node->attrs.getInt("kiln.captured", 0));
    CompiledBodies compiled;
    compiled.formalInputs = static_cast<int64_t>(formal);
    compiled.bodies = Json(Json::Object{});
    size_t hoisted = 0;
    for (const std::string& attr : node->attrs.graphNames()) {
      GraphExecutorModel body;
      try {
        body = compileBody(node->attrs.getGraph(attr), context);
      } catch (const Error& e) {
        throw Error(strCat(ir::nodeLabel(*node), ", body '", attr, "': ", e.what()));
      }
      size_t first = node->inputs.size();
      for (auto& [name, array] : body.params) {
        std::string outer = graph.uniqueName(strCat(node->name, "/", attr, "/", name));
        node->inputs.push_back(graph.addConstant(outer, std::move(array)));
      }
      hoisted += body.params.size();
      body.metadata["captured_inputs"] = indexList(formal, captured);
      body.metadata["param_inputs"] = indexList(first, body.params.size());
      compiled.bodies[attr] = std::move(body.metadata);
    }
    node->attrs.set("kiln.hoisted", static_cast<int64_t>(hoisted));
    out[node] = std::move(compiled);
  }
  return out;
}

}  // namespace kiln::driver
