// kiln.Offload: a chain of nodes a backend claimed, run by that backend's runtime. Its inputs are
// the chain's inputs; its attributes say which backend runs it (backend, pattern), what it does
// (payload: the backend's compiled form, base64; with `entry`, a relocatable object linked into
// the artifact whose function `entry` is the kernel, so no runtime is needed) and what it replaced
// (ops, nodes), and give its output's type (output_dtype, output_shape), which nothing else could
// infer.
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferOffload(Node& node) {
  for (const char* name : {"backend", "payload", "output_dtype"}) {
    if (!node.attrs.has(name)) fail(node, "the '", name, "' attribute is required");
  }
  if (!node.attrs.has("output_shape")) fail(node, "the 'output_shape' attribute is required");
  Shape shape = node.attrs.getInts("output_shape", {});
  for (int64_t d : shape) {
    if (d < 0) fail(node, "output_shape has the dim ", d, "; expected dims >= 0");
  }
  setOutput(node, 0, {DataType::parse(node.attrs.getString("output_dtype", "")), shape});
}

}  // namespace

void registerOffloadOps(const OpAdder& add) {
  add({.name = "kiln.Offload",
       .opClass = OpClass::kOpaque,
       .minInputs = 1,
       .maxInputs = kVariadicInputs,
       .inferTypes = inferOffload});
}

}  // namespace kiln::ir::ops
