// Split: where the axis is cut, for each of its forms.
#include "kiln/opdef/split.h"

#include <algorithm>

#include "kiln/opdef/axes.h"

namespace kiln::opdef {
namespace {

void checkGivenSizes(const OpView& op, const std::vector<int64_t>& split, int64_t dim) {
  if (split.size() != op.numOutputs()) {
    fail(op, "split ", listStr(split), " has ", split.size(), " entries but the node has ",
         op.numOutputs(), " outputs; expected one entry per output");
  }
  int64_t sum = 0;
  for (int64_t s : split) {
    if (s < 0) fail(op, "split ", listStr(split), " has a negative entry");
    sum += s;
  }
  if (dim != kUnknownDim && sum != dim) {
    fail(op, "split ", listStr(split), " sums to ", sum, "; expected the axis size ", dim);
  }
}

// Opset 18's num_outputs: ceil(dim / n) per output, the last one taking the rest.
std::vector<int64_t> numOutputsSizes(const OpView& op, int64_t dim) {
  int64_t n = op.attrInt("num_outputs", 0);
  auto outputs = static_cast<int64_t>(op.numOutputs());
  if (n != outputs) {
    fail(op, "num_outputs is ", n, " but the node has ", outputs, " outputs; expected equal");
  }
  if (dim == kUnknownDim) return std::vector<int64_t>(static_cast<size_t>(n), kUnknownDim);
  int64_t chunk = (dim + n - 1) / n;
  if (chunk * (n - 1) >= dim && dim > 0) {
    fail(op, "num_outputs ", n, " leaves an output empty for an axis of size ", dim,
         "; expected at most ", (dim + chunk - 1) / chunk, " outputs");
  }
  std::vector<int64_t> sizes;
  for (int64_t k = 0, left = dim; k < n; ++k, left -= chunk)
    sizes.push_back(std::max<int64_t>(0, std::min(chunk, left)));
  return sizes;
}

// The size of each part of the axis of size DIM (kUnknownDim where not known now).
std::vector<int64_t> partSizes(const OpView& op, int64_t dim) {
  size_t outputs = op.numOutputs();
  IntList split = intsFromAttrOrInput(op, "split", 1);
  // An empty split input is how some exporters leave it out.
  if (split.present && !split.values && op.inputShape(1) != Dims{0}) {
    return std::vector<int64_t>(outputs, kUnknownDim);
  }
  if (split.values && !split.values->empty()) {
    checkGivenSizes(op, *split.values, dim);
    return *split.values;
  }
  if (op.hasAttr("num_outputs")) return numOutputsSizes(op, dim);
  if (dim == kUnknownDim) return std::vector<int64_t>(outputs, kUnknownDim);
  if (dim % static_cast<int64_t>(outputs) != 0) {
    fail(op, "the axis size ", dim, " does not split into ", outputs,
         " equal parts; give 'split' sizes or num_outputs");
  }
  return std::vector<int64_t>(outputs, dim / static_cast<int64_t>(outputs));
}

}  // namespace

int64_t splitAxis(const OpView& op) {
  auto rank = static_cast<int64_t>(op.inputShape(0).size());
  if (rank == 0) fail(op, "input is ", op.inputTypeStr(0), "; expected at least 1 dim to split");
  return normalizeAxis(op, op.attrInt("axis", 0), rank);
}

std::vector<DimList> splitShapes(const OpView& op) {
  DimList in = op.inputDims(0);
  auto axis = static_cast<size_t>(splitAxis(op));
  std::vector<DimList> outs;
  for (int64_t size : partSizes(op, in[axis].valueOr(kUnknownDim))) {
    outs.push_back(in);
    outs.back()[axis] = Dim::fromShape(size);
  }
  return outs;
}

}  // namespace kiln::opdef
