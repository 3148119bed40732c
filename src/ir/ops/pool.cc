// Type inference of pooling: MaxPool and AveragePool windows, and the global pools.
#include "infer_util.h"
#include "kiln/ir/window.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferWindowPool(Node& node, bool isMax) {
  const TensorType& x = inputType(node, 0, "X");
  requireRankAtLeast(node, 0, 3, "N, C and spatial dims");
  if (isMax && !isFloatType(x.dtype) && x.dtype != DataType::int8() &&
      x.dtype != DataType::uint8()) {
    fail(node, "input 0 has type ", x.dtype.str(), "; expected a float type, int8 or uint8");
  }
  if (!isMax) requireFloat(node, 0);
  if (!node.attrs.has("kernel_shape")) fail(node, "the kernel_shape attribute is required");
  std::vector<int64_t> kernel = node.attrs.getInts("kernel_shape", {});
  auto spatial = static_cast<size_t>(x.rank() - 2);
  if (kernel.size() != spatial) {
    fail(node, "kernel_shape ", listStr(kernel), " has ", kernel.size(), " values; expected ",
         spatial, " for input ", x.str());
  }
  if (isMax) {
    int64_t order = node.attrs.getInt("storage_order", 0);
    if (order != 0 && order != 1) fail(node, "storage_order ", order, "; expected 0 or 1");
  } else {
    int64_t count = node.attrs.getInt("count_include_pad", 0);
    if (count != 0 && count != 1) fail(node, "count_include_pad ", count, "; expected 0 or 1");
  }
  WindowGeometry g = resolveWindow(node, Shape(x.shape.begin() + 2, x.shape.end()), kernel);
  Shape out = {x.shape[0], x.shape[1]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  setOutput(node, 0, {x.dtype, out});
  if (node.outputs.size() > 1) setOutput(node, 1, {DataType::int64(), out});
}

// The compiled pools cover 1-D and 2-D float windows; other ranks, integer elements, MaxPool's
// Indices and column-major indices run in the runtime.
bool poolRuntimeForm(const Node& node) {
  const TensorType& x = node.inputs[0]->type;
  return (x.rank() != 3 && x.rank() != 4) || !isFloatType(x.dtype) || node.outputs.size() > 1 ||
         node.attrs.getInt("storage_order", 0) != 0;
}

void inferGlobalPool(Node& node) {
  const TensorType& x = inputType(node, 0, "X");
  requireRankAtLeast(node, 0, 3, "N, C and spatial dims");
  requireFloat(node, 0);
  Shape out(x.shape.size(), 1);
  out[0] = x.shape[0];
  out[1] = x.shape[1];
  setOutput(node, 0, {x.dtype, out});
}

}  // namespace

void registerPoolOps(const OpAdder& add) {
  add({.name = "MaxPool",
       .opClass = OpClass::kComplex,
       .numOutputs = 2,
       .sinceVersion = 1,
       .runtimeForm = poolRuntimeForm,
       .inferTypes = [](Node& n) { inferWindowPool(n, true); },
       .sampleInputs = {0}});
  add({.name = "AveragePool",
       .opClass = OpClass::kComplex,
       .sinceVersion = 1,
       .runtimeForm = poolRuntimeForm,
       .inferTypes = [](Node& n) { inferWindowPool(n, false); },
       .sampleInputs = {0}});
  add({.name = "GlobalAveragePool",
       .opClass = OpClass::kReduction,
       .sinceVersion = 1,
       .inferTypes = inferGlobalPool,
       .sampleInputs = {0}});
  add({.name = "GlobalMaxPool",
       .opClass = OpClass::kReduction,
       .sinceVersion = 1,
       .inferTypes = inferGlobalPool,
       .sampleInputs = {0}});
  add({.name = "GlobalLpPool",  // p is an int from opset 2 (a float before)
       .opClass = OpClass::kReduction,
       .sinceVersion = 2,
       .inferTypes =
           [](Node& n) {
             if (n.attrs.getInt("p", 2) < 1)
               fail(n, "p is ", n.attrs.getInt("p", 2), "; expected p >= 1");
             inferGlobalPool(n);
           },
       .sampleInputs = {0}});
}

}  // namespace kiln::ir::ops
