// Type inference of DepthToSpace and SpaceToDepth, which move blocks of blocksize x blocksize
// pixels between the channel and the spatial dims of an NCHW tensor.
#include <string>

#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

int64_t blocksizeOf(const Node& node) {
  if (!node.attrs.has("blocksize")) fail(node, "the 'blocksize' attribute is required");
  int64_t b = node.attrs.getInt("blocksize");
  if (b < 1) fail(node, "blocksize is ", b, "; expected a positive integer");
  return b;
}

const TensorType& requireNchw(const Node& node) {
  const TensorType& x = inputType(node, 0, "input");
  if (x.rank() != 4) fail(node, "input is ", x.str(), "; expected a 4-D NCHW tensor");
  return x;
}

void inferDepthToSpace(Node& node) {
  const TensorType& x = requireNchw(node);
  int64_t b = blocksizeOf(node);
  std::string mode = node.attrs.getString("mode", "DCR");  // the attribute exists from opset 11
  if (mode != "DCR" && mode != "CRD") fail(node, "mode is '", mode, "'; expected 'DCR' or 'CRD'");
  int64_t c = x.shape[1];
  if (c % (b * b) != 0) {
    fail(node, "input ", x.str(), " has ", c,
         " channels; expected a multiple of blocksize^2 = ", b * b);
  }
  setOutput(node, 0, {x.dtype, {x.shape[0], c / (b * b), x.shape[2] * b, x.shape[3] * b}});
}

void inferSpaceToDepth(Node& node) {
  const TensorType& x = requireNchw(node);
  int64_t b = blocksizeOf(node);
  if (x.shape[2] % b != 0 || x.shape[3] % b != 0) {
    fail(node, "input ", x.str(), " has spatial dims ", x.shape[2], "x", x.shape[3],
         "; expected multiples of blocksize ", b);
  }
  setOutput(node, 0, {x.dtype, {x.shape[0], x.shape[1] * b * b, x.shape[2] / b, x.shape[3] / b}});
}

}  // namespace

void registerBlockOps(const OpAdder& add) {
  add({.name = "DepthToSpace",
       .opClass = OpClass::kInjective,
       .sinceVersion = 1,
       .inferTypes = inferDepthToSpace});
  add({.name = "SpaceToDepth",
       .opClass = OpClass::kInjective,
       .sinceVersion = 1,
       .inferTypes = inferSpaceToDepth});
}

}  // namespace kiln::ir::ops
