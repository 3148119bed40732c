// Type inference of Split: sizes as an attribute (before opset 13) or a constant input (opset 1
// and 13 on), the num_outputs attribute (opset 18), or equal parts, one per output.
#include <algorithm>

#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

// The size of each output along the axis of size DIM.
std::vector<int64_t> splitSizes(const Node& node, int64_t dim) {
  auto outputs = static_cast<int64_t>(node.outputs.size());
  if (std::optional<std::vector<int64_t>> split = intsFromAttrOrInput(node, "split", 1)) {
    if (static_cast<int64_t>(split->size()) != outputs) {
      fail(node, "split ", listStr(*split), " has ", split->size(), " entries but the node has ",
           outputs, " outputs; expected one entry per output");
    }
    int64_t sum = 0;
    for (int64_t s : *split) {
      if (s < 0) fail(node, "split ", listStr(*split), " has a negative entry");
      sum += s;
    }
    if (sum != dim) {
      fail(node, "split ", listStr(*split), " sums to ", sum, "; expected the axis size ", dim);
    }
    return *split;
  }
  if (node.attrs.has("num_outputs")) {
    // Opset 18: ceil(dim / n) per output, the last one taking the rest.
    int64_t n = node.attrs.getInt("num_outputs");
    if (n != outputs) {
      fail(node, "num_outputs is ", n, " but the node has ", outputs, " outputs; expected equal");
    }
    int64_t chunk = (dim + n - 1) / n;
    std::vector<int64_t> sizes;
    for (int64_t k = 0, left = dim; k < n; ++k, left -= chunk) {
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, left)));
    }
    if (chunk * (n - 1) >= dim && dim > 0) {
      fail(node, "num_outputs ", n, " leaves an output empty for an axis of size ", dim,
           "; expected at most ", (dim + chunk - 1) / chunk, " outputs");
    }
    return sizes;
  }
  if (dim % outputs != 0) {
    fail(node, "the axis size ", dim, " does not split into ", outputs,
         " equal parts; give 'split' sizes or num_outputs");
  }
  return std::vector<int64_t>(static_cast<size_t>(outputs), dim / outputs);
}

void inferSplit(Node& node) {
  const TensorType& x = inputType(node, 0, "input");
  requireRankAtLeast(node, 0, 1, "an axis to split");
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis", 0), x.rank()));
  std::vector<int64_t> sizes = splitSizes(node, x.shape[axis]);
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape out = x.shape;
    out[axis] = sizes[i];
    setOutput(node, i, {x.dtype, out});
  }
}

}  // namespace

void registerSplitOps(const OpAdder& add) {
  add({.name = "Split",
       .opClass = OpClass::kInjective,
       .minInputs = 1,
       .maxInputs = 2,
       .numOutputs = kVariadicInputs,  // one output per part
       .sinceVersion = 1,
       .inferTypes = inferSplit});
}

}  // namespace kiln::ir::ops
