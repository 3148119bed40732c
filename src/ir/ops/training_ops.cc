// Type inference of the optimizer steps of ONNX's training domain (ai.onnx.preview.training),
// which the runtime executes: Adagrad, Momentum and Adam. Inputs R, T, then N tensors, N
// gradients and N accumulators (Adam: 2N); outputs the N new tensors, then the accumulators.
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

void inferOptimizer(Node& node, size_t states) {
  size_t rest = node.inputs.size() - 2;
  if (node.inputs.size() < 2 || rest == 0 || rest % (2 + states) != 0) {
    fail(node, "has ", node.inputs.size(), " inputs; expected R, T and ", 2 + states,
         " per optimized tensor");
  }
  size_t n = rest / (2 + states);
  if (node.outputs.size() != (1 + states) * n) {
    fail(node, "has ", node.outputs.size(), " outputs; expected ", (1 + states) * n,
         " (the new tensors, then their new accumulators)");
  }
  for (size_t i = 0; i < 2; ++i) {
    const TensorType& t = inputType(node, i, i == 0 ? "R" : "T");
    if (t.rank() > 1 || (t.isStatic() && t.numel() != 1)) {
      fail(node, i == 0 ? "R" : "T", " is ", t.str(), "; expected a scalar");
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const TensorType& x = inputType(node, 2 + i);
    requireFloat(node, 2 + i);
    for (size_t k = 1; k < 2 + states; ++k) {
      if (!(inputType(node, 2 + k * n + i) == x)) {
        fail(node, "input ", 2 + k * n + i, " is ", inputType(node, 2 + k * n + i).str(),
             "; expected ", x.str(), " like the tensor it goes with");
      }
    }
    for (size_t k = 0; k < 1 + states; ++k) setOutput(node, k * n + i, x);
  }
}

}  // namespace

void registerTrainingOps(const OpAdder& add) {
  constexpr int kMany = 1 << 20;
  add({.name = "Adagrad",
       .minInputs = 5,
       .maxInputs = kVariadicInputs,
       .numOutputs = kMany,
       .inferTypes = [](Node& n) { inferOptimizer(n, 1); }});
  add({.name = "Momentum",
       .minInputs = 5,
       .maxInputs = kVariadicInputs,
       .numOutputs = kMany,
       .inferTypes = [](Node& n) { inferOptimizer(n, 1); }});
  add({.name = "Adam",
       .minInputs = 6,
       .maxInputs = kVariadicInputs,
       .numOutputs = kMany,
       .inferTypes = [](Node& n) { inferOptimizer(n, 2); }});
}

}  // namespace kiln::ir::ops
