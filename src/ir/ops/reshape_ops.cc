// Type inference of ops that change a tensor's shape but not its elements' order: Flatten,
// Reshape, Squeeze, Unsqueeze (by src/opdef's rules); and Expand and Tile, which repeat elements.
#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "kiln/opdef/reshape.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

// Reshape, Squeeze, Unsqueeze and Flatten follow src/opdef's rules, which the runtime's ops follow
// too; dims known only at run time stay unknown.
void inferReshapeFamily(Node& node, opdef::Dims (*rule)(const opdef::OpView&)) {
  setOutput(node, 0, {inputType(node, 0).dtype, rule(NodeView(node))});
}

void inferFlatten(Node& node) { inferReshapeFamily(node, opdef::flattenShape); }
void inferReshape(Node& node) { inferReshapeFamily(node, opdef::reshapeShape); }
void inferSqueeze(Node& node) { inferReshapeFamily(node, opdef::squeezeShape); }
void inferUnsqueeze(Node& node) { inferReshapeFamily(node, opdef::unsqueezeShape); }

void inferExpand(Node& node) {
  const TensorType& x = inputType(node, 0);
  if (inputType(node, 1, "shape").rank() != 1) {
    fail(node, "shape input is ", inputType(node, 1).str(), "; expected a 1-D tensor");
  }
  std::vector<int64_t> shape = requireConstantInts(node, 1, "shape");
  for (int64_t d : shape) {
    if (d < 0) fail(node, "shape ", listStr(shape), " has a negative dim");
  }
  setOutput(node, 0, {x.dtype, broadcastShapes(node, x.shape, shape)});
}

void inferTile(Node& node) {
  const TensorType& x = inputType(node, 0);
  const TensorType& r = inputType(node, 1, "repeats");
  if (r.rank() != 1) fail(node, "repeats is ", r.str(), "; expected a 1-D tensor");
  std::vector<int64_t> repeats = requireConstantInts(node, 1, "repeats");
  if (static_cast<int64_t>(repeats.size()) != x.rank()) {
    fail(node, "repeats ", listStr(repeats), " has ", repeats.size(), " entries for input ",
         x.str(), "; expected one per dim (", x.rank(), ")");
  }
  Shape out = x.shape;
  for (size_t d = 0; d < out.size(); ++d) {
    if (repeats[d] < 0) fail(node, "repeats ", listStr(repeats), " has a negative entry");
    if (__builtin_mul_overflow(out[d], repeats[d], &out[d])) {
      fail(node, "dim ", d, " of the output overflows int64");
    }
  }
  setOutput(node, 0, {x.dtype, out});
}

}  // namespace

void registerReshapeOps(const OpAdder& add) {
  add({.name = "Flatten",
       .opClass = OpClass::kInjective,
       .sinceVersion = 1,
       .inferRunTime = inferFlatten,
       .inferTypes = inferFlatten});
  add({.name = "Reshape",
       .opClass = OpClass::kInjective,
       .minInputs = 1,
       .maxInputs = 2,
       .sinceVersion = 1,
       .shapeInputs = {1},
       .inferRunTime = inferReshape,
       .inferTypes = inferReshape});
  add({.name = "Squeeze",
       .opClass = OpClass::kInjective,
       .maxInputs = 2,
       .sinceVersion = 1,
       .shapeInputs = {1},
       .inferRunTime = inferSqueeze,
       .inferTypes = inferSqueeze});
  add({.name = "Unsqueeze",
       .opClass = OpClass::kInjective,
       .maxInputs = 2,
       .sinceVersion = 1,
       .shapeInputs = {1},
       .inferRunTime = inferUnsqueeze,
       .inferTypes = inferUnsqueeze});
  add({.name = "Expand",
       .opClass = OpClass::kBroadcast,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 8,
       .inferTypes = inferExpand});
  add({.name = "Tile",
       .opClass = OpClass::kInjective,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 6,
       .inferTypes = inferTile});
}

}  // namespace kiln::ir::ops
