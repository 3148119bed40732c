// A runtime-op kernel: its args are the node's inputs (an omitted one as null) and then its
// outputs; its attributes travel as JSON, a tensor attribute as {dtype, shape, base64 data}.
#include "lower_runtime_op.h"

#include "kiln/ir/op_registry.h"
#include "kiln/runtime/runtime_op.h"
#include "kiln/support/base64.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

template <typename T>
Json listJson(const std::vector<T>& v) {
  Json::Array a;
  for (const T& e : v) a.emplace_back(e);
  return Json(std::move(a));
}

Json tensorJson(const ir::NDArray& t) {
  Json j;
  j["dtype"] = t.dtype().str();
  Json::Array dims;
  for (int64_t d : t.shape()) dims.emplace_back(d);
  j["shape"] = Json(std::move(dims));
  j["data"] = base64Encode(std::string(static_cast<const char*>(t.data()), t.nbytes()));
  return j;
}

Json attrsJson(const ir::Attrs& attrs) {
  Json out = Json(Json::Object{});
  for (const auto& [name, value] : attrs.all()) {
    if (name.rfind("kiln.", 0) == 0) continue;  // kiln's own marks are for its compiled kernels
    std::visit(
        [&, &name = name](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, ir::NDArray>) {
            out[name] = tensorJson(v);
          } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double> ||
                               std::is_same_v<T, std::string>) {
            out[name] = Json(v);
          } else {
            out[name] = listJson(v);
          }
        },
        value);
  }
  return out;
}

}  // namespace

bool runsInRuntime(const FusedGroup& group, const LoweringTable& lowerings) {
  if (group.nodes.size() != 1) return false;
  const ir::Node& node = *group.nodes.front();
  if (ir::hasRunTimeShapes(node)) return true;
  return lowerings.find(node.op) == nullptr && runtime::findRuntimeOp(node.op) != nullptr;
}

LoweredKernel lowerRuntimeOp(const FusedGroup& group, const std::string& symbol) {
  const ir::Node& node = *group.nodes.front();
  if (runtime::findRuntimeOp(node.op) == nullptr) {
    throw Error(strCat(ir::nodeLabel(node),
                       ": its shapes are known only at run time, and the "
                       "runtime does not execute '",
                       node.op, "'"));
  }
  LoweredKernel k;
  k.func.name = symbol;
  for (const ir::Value* v : node.inputs) k.args.push_back(v);
  for (const ir::Value* v : node.outputs) k.args.push_back(v);
  k.runtimeOp = KernelRuntimeOp{node.op, attrsJson(node.attrs)};
  return k;
}

}  // namespace kiln::kernel
