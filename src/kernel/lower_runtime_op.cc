// A runtime-op kernel: its args are the node's inputs (an omitted one as null) and then its
// outputs; its attributes travel as JSON (ir::runtimeOpAttrs).
#include "lower_runtime_op.h"

#include <algorithm>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/runtime_op_call.h"
#include "kiln/runtime/runtime_op.h"
#include "kiln/support/error.h"

namespace kiln::kernel {

bool runsInRuntime(const FusedGroup& group, const LoweringTable& lowerings) {
  if (group.nodes.size() != 1) return false;
  const ir::Node& node = *group.nodes.front();
  if (ir::runsInRuntime(node)) return true;
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
  // An output nothing reads is not planned: the runtime computes it into scratch memory.
  for (const ir::Value* v : node.outputs) {
    bool read = std::find(group.outputs.begin(), group.outputs.end(), v) != group.outputs.end();
    k.args.push_back(read ? v : nullptr);
  }
  k.runtimeOp.emplace();
  for (const ir::Value* v : node.outputs) k.runtimeOp->outputDtypes.push_back(v->type.dtype);
  k.runtimeOp->op = node.op;
  k.runtimeOp->attrs = ir::runtimeOpAttrs(node.attrs);
  return k;
}

}  // namespace kiln::kernel
