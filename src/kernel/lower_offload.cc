// An offload kernel: its args are the node's inputs in the node's order (repeats kept, as the
// backend compiled it) and then its output; it has no loop IR. A backend's runtime runs it, or,
// when the backend emitted an object, that object is linked in as the kernel.
#include "lower_offload.h"

#include "kiln/support/base64.h"
#include "kiln/support/error.h"

namespace kiln::kernel {

LoweredKernel lowerOffload(const FusedGroup& group, const std::string& symbol) {
  KILN_CHECK(group.nodes.size() == 1, "offload group ", group.name, " holds ", group.nodes.size(),
             " nodes; expected its kiln.Offload node alone");
  const ir::Node& node = *group.nodes.front();
  LoweredKernel k;
  k.func.name = symbol;
  for (const ir::Value* v : node.inputs) {
    KILN_CHECK(v != nullptr, "kiln.Offload '", node.name, "' has an omitted input");
    k.args.push_back(v);
  }
  k.args.push_back(node.outputs[0]);
  std::string backend = node.attrs.getString("backend", "");
  std::string payload = node.attrs.getString("payload", "");
  std::string entry = node.attrs.getString("entry", "");
  if (entry.empty()) {
    k.offload = KernelOffload{backend, payload};
  } else {
    k.object = KernelObject{
        backend, base64Decode(payload, strCat("the object of kiln.Offload '", node.name, "'")),
        entry};
  }
  return k;
}

}  // namespace kiln::kernel
