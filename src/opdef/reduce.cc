// Reduce* and TopK: which dims shrink, and to what.
#include "kiln/opdef/reduce.h"

#include "kiln/opdef/axes.h"

namespace kiln::opdef {

std::optional<std::vector<bool>> reducedDims(const OpView& op) {
  auto rank = static_cast<int64_t>(op.inputShape(0).size());
  IntList axes = intsFromAttrOrInput(op, "axes", 1);
  bool empty = !axes.present || (axes.values && axes.values->empty()) ||
               (!axes.values && op.inputShape(1) == Dims{0});
  if (empty) {
    bool noop = op.attrInt("noop_with_empty_axes", 0) != 0;
    return std::vector<bool>(static_cast<size_t>(rank), !noop);
  }
  if (!axes.values) return std::nullopt;
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : normalizeAxes(op, *axes.values, rank, "axes"))
    reduced[static_cast<size_t>(a)] = true;
  return reduced;
}

DimList reduceShape(const OpView& op) {
  DimList in = op.inputDims(0);
  bool keepDims = op.attrInt("keepdims", 1) != 0;
  std::optional<std::vector<bool>> reduced = reducedDims(op);
  if (!reduced) {  // which dims go is known at run time; how many, when keepdims is 0, now
    if (keepDims) {
      DimList out;
      for (const Dim& d : in) out.push_back(d == Dim(1) ? Dim(1) : Dim::unknown());
      return out;
    }
    int64_t n = listLength(op, 1, "axes");
    if (n > static_cast<int64_t>(in.size())) {
      fail(op, "axes (input 1) names ", n, " axes of ", op.inputTypeStr(0), "; expected at most ",
           in.size());
    }
    return DimList(in.size() - static_cast<size_t>(n), Dim::unknown());
  }
  DimList out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!(*reduced)[d]) {
      out.push_back(in[d]);
    } else if (keepDims) {
      out.push_back(1);
    }
  }
  return out;
}

int64_t topKAxis(const OpView& op) {
  auto rank = static_cast<int64_t>(op.inputShape(0).size());
  if (rank == 0)
    fail(op, "input is ", op.inputTypeStr(0), "; expected at least 1 dim to select along");
  return normalizeAxis(op, op.attrInt("axis", -1), rank);
}

Dims topKShape(const OpView& op) {
  Dims out = op.inputShape(0);
  auto axis = static_cast<size_t>(topKAxis(op));
  std::optional<int64_t> k;
  if (op.hasAttr("k")) {
    if (op.hasInput(1)) fail(op, "K is given both as attribute 'k' and as input 1; expected one");
    k = op.attrInt("k", 0);
  } else {
    if (!op.hasInput(1)) fail(op, "K is required (input 1 from opset 10, attribute 'k' before)");
    std::optional<std::vector<int64_t>> ks = op.inputInts(1, "K");
    if (ks && ks->size() != 1) fail(op, "K has ", ks->size(), " elements; expected one");
    if (ks) k = (*ks)[0];
  }
  if (k && (*k < 0 || (out[axis] != kUnknownDim && *k > out[axis]))) {
    fail(op, "K is ", *k, "; expected 0 to ", out[axis], " (dim ", axis, " of ", op.inputTypeStr(0),
         ")");
  }
  out[axis] = k ? *k : kUnknownDim;
  return out;
}

}  // namespace kiln::opdef
