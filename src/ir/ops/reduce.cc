// Type inference of ReduceMean/ReduceSum/ReduceMax, with axes as an attribute (ReduceSum before
// 13, the others before 18) or as a constant input (afterwards).
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferReduce(Node& node) {
  const TensorType& x = inputType(node, 0);
  requireNumeric(node, 0);
  bool keepDims = node.attrs.getInt("keepdims", 1) != 0;
  bool noopWithEmptyAxes = node.attrs.getInt("noop_with_empty_axes", 0) != 0;
  std::optional<std::vector<int64_t>> axes = intsFromAttrOrInput(node, "axes", 1);
  if (!axes || axes->empty()) {
    if (noopWithEmptyAxes) {
      setOutput(node, 0, x);
      return;
    }
    axes.emplace();
    for (int64_t a = 0; a < x.rank(); ++a) axes->push_back(a);
  }
  std::vector<int64_t> reduced = normalizeAxes(node, *axes, x.rank());
  std::vector<bool> isReduced(x.shape.size(), false);
  for (int64_t a : reduced) isReduced[static_cast<size_t>(a)] = true;
  Shape out;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (!isReduced[d]) {
      out.push_back(x.shape[d]);
    } else if (keepDims) {
      out.push_back(1);
    }
  }
  setOutput(node, 0, {x.dtype, out});
}

OpDef reduceOp(const char* name) {
  return {.name = name,
          .opClass = OpClass::kReduction,
          .minInputs = 1,
          .maxInputs = 2,
          .sinceVersion = 1,
          .inferTypes = inferReduce};
}

}  // namespace

void registerReduceOps(const OpAdder& add) {
  add(reduceOp("ReduceMean"));
  add(reduceOp("ReduceSum"));
  add(reduceOp("ReduceMax"));
}

}  // namespace kiln::ir::ops
