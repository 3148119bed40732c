// Reshape, Squeeze, Unsqueeze and Flatten: where each output dim comes from; the dims Shape reads.
#include "kiln/opdef/reshape.h"

#include <algorithm>

#include "kiln/opdef/axes.h"

namespace kiln::opdef {
namespace {

std::vector<int64_t> reshapeTarget(const OpView& op, bool* known) {
  *known = true;
  if (op.hasAttr("shape")) {  // opset < 5
    if (op.hasInput(1)) fail(op, "shape is given both as attribute and as input 1");
    return op.attrInts("shape");
  }
  if (!op.hasInput(1)) fail(op, "the shape input (input 1) is required");
  int64_t length = listLength(op, 1, "shape");
  std::optional<std::vector<int64_t>> values = op.inputInts(1, "shape");
  if (values) return *values;
  *known = false;
  return std::vector<int64_t>(static_cast<size_t>(length), kUnknownDim);
}

}  // namespace

Dims reshapeShape(const OpView& op) {
  Dims in = op.inputShape(0);
  bool targetKnown = false;
  std::vector<int64_t> target = reshapeTarget(op, &targetKnown);
  if (!targetKnown) return target;
  bool allowZero = op.attrInt("allowzero", 0) != 0;
  Dims out(target.size());
  int64_t inferred = -1;
  bool hasZero = false;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t v = target[i];
    if (v == -1) {
      if (inferred >= 0) fail(op, "shape ", listStr(target), " has more than one -1");
      inferred = static_cast<int64_t>(i);
      out[i] = 1;
    } else if (v < -1) {
      fail(op, "shape ", listStr(target), " has ", v, " at position ", i, "; expected dims >= -1");
    } else if (v == 0 && !allowZero) {
      if (i >= in.size()) {
        fail(op, "shape ", listStr(target), " has 0 (copy the input dim) at position ", i,
             " but the input ", op.inputTypeStr(0), " has only ", in.size(), " dims");
      }
      out[i] = in[i];
    } else {
      hasZero = hasZero || v == 0;
      out[i] = v;
    }
  }
  if (allowZero && hasZero && inferred >= 0) {
    fail(op, "shape ", listStr(target),
         " has both 0 and -1 with allowzero=1; expected at most one of them");
  }
  if (!allKnown(in) || !allKnown(out)) {
    if (inferred >= 0) out[static_cast<size_t>(inferred)] = kUnknownDim;
    return out;  // the element counts are checked when the sizes are known
  }
  int64_t numel = product(in), known = product(out);
  if (inferred >= 0) {
    if (known == 0 || numel % known != 0) {
      fail(op, "cannot reshape ", op.inputTypeStr(0), " (", numel, " elements) to ",
           listStr(target), ": the other dims (product ", known,
           ") do not divide the element count");
    }
    out[static_cast<size_t>(inferred)] = numel / known;
  } else if (known != numel) {
    fail(op, "cannot reshape ", op.inputTypeStr(0), " (", numel, " elements) to ", listStr(out),
         " (", known, " elements)");
  }
  return out;
}

Dims squeezeShape(const OpView& op) {
  Dims in = op.inputShape(0);
  IntList axes = intsFromAttrOrInput(op, "axes", 1);
  if (axes.present && !axes.values) {
    int64_t n = listLength(op, 1, "axes");
    if (n > 0) return Dims(in.size() - static_cast<size_t>(n), kUnknownDim);
  }
  std::vector<bool> drop(in.size(), false);
  if (!axes.values || axes.values->empty()) {  // no axes (or an empty list): every dim of size 1
    if (!allKnown(in)) {
      fail(op, "without axes, Squeeze drops the dims of size 1, but the input is ",
           op.inputTypeStr(0), ", sized at run time: the output rank is unknown; give the axes");
    }
    for (size_t d = 0; d < in.size(); ++d) drop[d] = in[d] == 1;
  } else {
    for (int64_t a : normalizeAxes(op, *axes.values, static_cast<int64_t>(in.size()))) {
      auto d = static_cast<size_t>(a);
      if (in[d] != 1 && in[d] != kUnknownDim) {
        fail(op, "cannot squeeze axis ", a, " of ", op.inputTypeStr(0), ": its size is ", in[d],
             ", expected 1");
      }
      drop[d] = true;
    }
  }
  Dims out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!drop[d]) out.push_back(in[d]);
  }
  return out;
}

Dims unsqueezeShape(const OpView& op) {
  Dims in = op.inputShape(0);
  IntList axes = intsFromAttrOrInput(op, "axes", 1);
  if (!axes.present) fail(op, "axes are required (attribute before opset 13, input 1 from 13)");
  if (!axes.values) {
    return Dims(in.size() + static_cast<size_t>(listLength(op, 1, "axes")), kUnknownDim);
  }
  auto rank = static_cast<int64_t>(in.size() + axes.values->size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t a : normalizeAxes(op, *axes.values, rank)) inserted[static_cast<size_t>(a)] = true;
  Dims out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    out.push_back(inserted[static_cast<size_t>(d)] ? 1 : in[next++]);
  return out;
}

Dims flattenShape(const OpView& op) {
  Dims in = op.inputShape(0);
  auto rank = static_cast<int64_t>(in.size());
  auto axis = static_cast<size_t>(normalizeAxis(op, op.attrInt("axis", 1), rank, "axis", true));
  Dims outer(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(axis));
  Dims inner(in.begin() + static_cast<std::ptrdiff_t>(axis), in.end());
  return {allKnown(outer) ? product(outer) : kUnknownDim,
          allKnown(inner) ? product(inner) : kUnknownDim};
}

DimRange shapeOpRange(const OpView& op) {
  auto rank = static_cast<int64_t>(op.inputShape(0).size());
  auto clamped = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  int64_t start = clamped(op.attrInt("start", 0));
  int64_t end = clamped(op.attrInt("end", rank));
  return {start, std::max(start, end)};
}

}  // namespace kiln::opdef
