// Type inference of ops that change a tensor's shape but not its elements' order: Flatten,
// Reshape, Squeeze, Unsqueeze; and Expand and Tile, which repeat elements: all by src/opdef's
// rules, which the runtime's ops follow too.
#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "kiln/opdef/broadcast.h"
#include "kiln/opdef/reshape.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

// Reshape, Squeeze, Unsqueeze and Flatten follow src/opdef's rules, which the runtime's ops follow
// too; dims known only at run time stay unknown.
void inferReshapeFamily(Node& node, opdef::DimList (*rule)(const opdef::OpView&)) {
  setOutput(node, 0, TensorType::of(inputType(node, 0).dtype, rule(NodeView(node))));
}

void inferFlatten(Node& node) { inferReshapeFamily(node, opdef::flattenShape); }
void inferReshape(Node& node) { inferReshapeFamily(node, opdef::reshapeShape); }
void inferSqueeze(Node& node) { inferReshapeFamily(node, opdef::squeezeShape); }
void inferUnsqueeze(Node& node) { inferReshapeFamily(node, opdef::unsqueezeShape); }

void inferExpand(Node& node) {
  setOutput(node, 0, TensorType::of(inputType(node, 0).dtype, opdef::expandShape(NodeView(node))));
}

void inferTile(Node& node) {
  setOutput(node, 0, {inputType(node, 0).dtype, opdef::tileShape(NodeView(node))});
}

}  // namespace

void registerReshapeOps(const OpAdder& add) {
  add({.name = "Flatten",
       .opClass = OpClass::kInjective,
       .sinceVersion = 1,
       .inferRunTime = inferFlatten,
       .inferTypes = inferFlatten,
       .symbolicSizes = true,
       .symbolicKernel = true});
  add({.name = "Reshape",
       .opClass = OpClass::kInjective,
       .minInputs = 1,
       .maxInputs = 2,
       .sinceVersion = 1,
       .shapeInputs = {1},
       .inferRunTime = inferReshape,
       .inferTypes = inferReshape,
       .symbolicSizes = true,
       .symbolicKernel = true});
  add({.name = "Squeeze",
       .opClass = OpClass::kInjective,
       .maxInputs = 2,
       .sinceVersion = 1,
       .shapeInputs = {1},
       .inferRunTime = inferSqueeze,
       .inferTypes = inferSqueeze,
       .symbolicSizes = true,
       .symbolicKernel = true});
  add({.name = "Unsqueeze",
       .opClass = OpClass::kInjective,
       .maxInputs = 2,
       .sinceVersion = 1,
       .shapeInputs = {1},
       .inferRunTime = inferUnsqueeze,
       .inferTypes = inferUnsqueeze,
       .symbolicSizes = true,
       .symbolicKernel = true});
  add({.name = "Expand",
       .opClass = OpClass::kBroadcast,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 8,
       .shapeInputs = {1},
       .inferRunTime = inferExpand,
       .inferTypes = inferExpand,
       .symbolicSizes = true,
       .symbolicKernel = true});
  add({.name = "Tile",
       .opClass = OpClass::kInjective,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 6,
       .shapeInputs = {1},
       .inferRunTime = inferTile,
       .inferTypes = inferTile});
}

}  // namespace kiln::ir::ops
