// Lays out one model for ahead-of-time execution: inputs and outputs are the caller's buffers, the
// weights a table of pointers, and every other tensor a fixed offset in one workspace, so the
// entry function is a straight list of kernel calls and the runtime interprets nothing.
#include "kiln/driver/aot_codegen.h"

#include <map>

#include "kiln/driver/graph_metadata.h"
#include "kiln/driver/model_signature.h"
#include "kiln/ir/flops.h"
#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"

namespace kiln::driver {
namespace {

using codegen::EntryArg;

class Layout {
 public:
  explicit Layout(const LoweredModel& m) : m_(m) {
    const ir::Graph& g = m.graph;
    for (size_t i = 0; i < g.inputs().size(); ++i)
      own(g.inputs()[i], EntryArg::Base::kInput, static_cast<int64_t>(i));
    for (size_t i = 0; i < g.outputs().size(); ++i)
      own(g.outputs()[i], EntryArg::Base::kOutput, static_cast<int64_t>(i));
    for (size_t s = 0; s < m.plan.storageSizes.size(); ++s) {
      if (storageBase_.count(static_cast<int>(s))) continue;
      storageBase_[static_cast<int>(s)] = {EntryArg::Base::kWorkspace, 0, workspace_};
      workspace_ += (m.plan.storageSizes[s] + 63) / 64 * 64;
    }
  }

  // Where V lies when a kernel reads or writes it; constants become parameters on first use.
  EntryArg place(const ir::Value* v, ExecutorCode& code, Json& params) {
    if (v->isConstant()) {
      auto [it, added] = paramIndex_.emplace(v, static_cast<int64_t>(code.params.size()));
      if (added) {
        code.params.emplace_back(v->name, *v->constant);
        params.push(tensorSignature(v->name, v->type));
      }
      return {EntryArg::Base::kParam, it->second, 0};
    }
    auto slot = m_.plan.slots.find(v);
    KILN_CHECK(slot != m_.plan.slots.end(), "value '", v->name, "' has no place in the plan");
    EntryArg at = storageBase_.at(slot->second.storage);
    at.offset += slot->second.offset;
    return at;
  }

  int64_t workspaceBytes() const { return workspace_; }

 private:
  void own(const ir::Value* v, EntryArg::Base base, int64_t index) {
    auto slot = m_.plan.slots.find(v);
    KILN_CHECK(slot != m_.plan.slots.end() && slot->second.offset == 0, "model ", m_.name,
               ": input or output '", v->name, "' does not own its storage");
    storageBase_[slot->second.storage] = {base, index, 0};
  }

  const LoweredModel& m_;
  std::map<int, EntryArg> storageBase_;
  std::map<const ir::Value*, int64_t> paramIndex_;
  int64_t workspace_ = 0;
};

}  // namespace

std::string aotEntrySymbol(const std::string& model) { return strCat("kiln_", model, "_run"); }

// An entry function calls compiled kernels over a static plan; a node the runtime executes has
// neither.
void refuseRuntimeOps(const LoweredModel& model) {
  for (size_t k = 0; k < model.kernels.size(); ++k) {
    if (model.kernels[k].readsSymbols) {
      throw Error(strCat("--executor aot cannot run kernel '", model.groups[k].name,
                         "': it is sized by the symbols of --dim-bounds, which an entry function "
                         "over a static plan cannot size; use --executor graph"));
    }
    if (model.kernels[k].runtimeOp) {
      const ir::Node& node = *model.groups[k].nodes.front();
      throw Error(strCat("--executor aot cannot run ", ir::nodeLabel(node),
                         ": the runtime executes it (",
                         ir::hasRunTimeShapes(node) ? "its shapes are known only at run time"
                                                    : "kiln compiles no kernel for it",
                         "), and an entry function calls only compiled kernels over a static "
                         "plan; use --executor graph"));
    }
  }
}

ExecutorCode generateAotExecutor(const LoweredModel& model) {
  KILN_CHECK(model.groups.size() == model.kernels.size(), "one kernel per group");
  refuseRuntimeOps(model);
  ExecutorCode code;
  Layout layout(model);
  Json params = Json(Json::Array{});
  Json kernels = Json(Json::Array{});
  codegen::EntryFunction entry;
  entry.symbol = aotEntrySymbol(model.name);
  for (size_t k = 0; k < model.kernels.size(); ++k) {
    if (const auto& offload = model.kernels[k].offload) {
      throw Error(
          strCat("--executor aot cannot run kernel '", model.groups[k].name,
                 "', which is offloaded to backend '", offload->backend,
                 "': an entry function calls only kernels linked into the library; use --executor "
                 "graph, or leave '",
                 offload->backend, "' out of --target"));
    }
    codegen::EntryCall call;
    call.kernel = model.kernels[k].func.name;
    for (const ir::Value* v : model.kernels[k].args)
      call.args.push_back(layout.place(v, code, params));
    entry.calls.push_back(std::move(call));
    Json info;
    info["name"] = model.groups[k].name;
    info["symbol"] = model.kernels[k].func.name;
    info["ops"] = groupOps(model.groups[k]);
    info["flops"] = ir::groupFlops(model.groups[k]);
    kernels.push(std::move(info));
  }
  Json inputs = Json(Json::Array{}), outputs = Json(Json::Array{});
  for (const ir::Value* v : model.graph.inputs()) inputs.push(tensorSignature(v->name, v->type));
  for (size_t i = 0; i < model.graph.outputs().size(); ++i)
    outputs.push(tensorSignature(model.outputNames.at(i), model.graph.outputs()[i]->type));
  code.metadata["entry"] = entry.symbol;
  code.metadata["workspace_bytes"] = layout.workspaceBytes();
  code.metadata["inputs"] = std::move(inputs);
  code.metadata["outputs"] = std::move(outputs);
  code.metadata["params"] = std::move(params);
  code.metadata["kernels"] = std::move(kernels);
  code.entries.push_back(std::move(entry));
  return code;
}

}  // namespace kiln::driver
