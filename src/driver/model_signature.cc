// Writes what `kiln inspect` and every runtime show of a model without knowing its executor.
#include "kiln/driver/model_signature.h"

namespace kiln::driver {

Json tensorSignature(const std::string& name, const ir::TensorType& type) {
  Json::Array dims;
  for (int64_t d : type.shape) dims.emplace_back(d);
  Json t;
  t["name"] = name;
  t["shape"] = Json(std::move(dims));
  t["dtype"] = type.dtype.str();
  if (!type.isTensor()) {  // a sequence or optional: SHAPE and DTYPE are its tensors'
    t["kind"] = runtime::valueKindName(type.kind);
    if (type.unranked) t["unranked"] = true;
  }
  return t;
}

Json modelSignature(const ir::Graph& graph, const transform::MemoryPlan& plan,
                    const std::vector<std::string>& outputNames, size_t numParams) {
  Json inputs = Json(Json::Array{});
  for (const ir::Value* v : graph.inputs()) inputs.push(tensorSignature(v->name, v->type));
  Json outputs = Json(Json::Array{});
  for (size_t i = 0; i < graph.outputs().size(); ++i)
    outputs.push(tensorSignature(outputNames.at(i), graph.outputs()[i]->type));
  int64_t workspace = 0;
  for (int64_t size : plan.storageSizes) workspace += size;
  Json signature;
  signature["inputs"] = std::move(inputs);
  signature["outputs"] = std::move(outputs);
  signature["workspace_bytes"] = workspace;
  signature["num_params"] = static_cast<int64_t>(numParams);
  // The backends whose runtimes the model needs, with their partition counts (partitions a backend
  // compiled to objects are linked in and need nothing).
  Json backends = Json(Json::Object{});
  for (const ir::Node* n : graph.nodes()) {
    if (n->op != "kiln.Offload" || !n->attrs.getString("entry", "").empty()) continue;
    std::string backend = n->attrs.getString("backend", "");
    backends[backend] = (backends.contains(backend) ? backends.at(backend).asInt() : 0) + 1;
  }
  signature["offload_backends"] = std::move(backends);
  return signature;
}

}  // namespace kiln::driver
