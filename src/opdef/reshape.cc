// Reshape, Squeeze, Unsqueeze and Flatten: where each output dim comes from; the dims Shape reads.
#include "kiln/opdef/reshape.h"

#include <algorithm>

#include "kiln/opdef/axes.h"

namespace kiln::opdef {
namespace {

// Reshape's target: the attribute (opset < 5) or input 1's values, as sizes (a shape computation
// gives them in the graph's symbols); nullopt when they are not known now, with LENGTH entries.
std::optional<DimList> reshapeTarget(const OpView& op, int64_t* length) {
  if (op.hasAttr("shape")) {  // opset < 5
    if (op.hasInput(1)) fail(op, "shape is given both as attribute and as input 1");
    std::vector<int64_t> shape = op.attrInts("shape");
    *length = static_cast<int64_t>(shape.size());
    return DimList(shape.begin(), shape.end());
  }
  if (!op.hasInput(1)) fail(op, "the shape input (input 1) is required");
  *length = listLength(op, 1, "shape");
  return op.inputSizes(1, "shape");
}

Dim productOf(const DimList& dims) {
  Dim n = 1;
  for (const Dim& d : dims) n = n * d;
  return n;
}

// The target's entries that are not sizes: -1 (inferred), and 0 (copy) unless ALLOWZERO.
void checkTargetEntries(const OpView& op, const DimList& target, bool allowZero, size_t inRank) {
  bool inferred = false, hasZero = false;
  for (size_t i = 0; i < target.size(); ++i) {
    if (!target[i].isConst()) continue;
    int64_t v = target[i].value();
    if (v == -1) {
      if (inferred) fail(op, "shape ", dimListStr(target), " has more than one -1");
      inferred = true;
    } else if (v < -1) {
      fail(op, "shape ", dimListStr(target), " has ", v, " at position ", i,
           "; expected dims >= -1");
    } else if (v == 0 && !allowZero && i >= inRank) {
      fail(op, "shape ", dimListStr(target), " has 0 (copy the input dim) at position ", i,
           " but the input ", op.inputTypeStr(0), " has only ", inRank, " dims");
    }
    hasZero = hasZero || v == 0;
  }
  if (allowZero && hasZero && inferred) {
    fail(op, "shape ", dimListStr(target),
         " has both 0 and -1 with allowzero=1; expected at most one of them");
  }
}

}  // namespace

DimList reshapeShape(const OpView& op) {
  DimList in = op.inputDims(0);
  int64_t length = 0;
  std::optional<DimList> target = reshapeTarget(op, &length);
  if (!target) return DimList(static_cast<size_t>(length), Dim::unknown());
  bool allowZero = op.attrInt("allowzero", 0) != 0;
  checkTargetEntries(op, *target, allowZero, in.size());
  DimList out(target->size());
  std::optional<size_t> inferred;
  for (size_t i = 0; i < target->size(); ++i) {
    const Dim& v = (*target)[i];
    if (v == Dim(-1)) {
      inferred = i;
      out[i] = 1;
    } else {
      out[i] = v == Dim(0) && !allowZero ? in[i] : v;
    }
  }
  Dim numel = productOf(in), known = productOf(out);
  if (numel.isUnknown() || known.isUnknown()) {
    if (inferred) out[*inferred] = Dim::unknown();
    return out;  // the element counts are checked when the sizes are known
  }
  if (inferred) {
    std::optional<Dim> q = Dim::divideExactly(numel, known);
    if (!q && numel.isConst() && known.isConst()) {
      fail(op, "cannot reshape ", op.inputTypeStr(0), " (", numel.str(), " elements) to ",
           dimListStr(*target), ": the other dims (product ", known.str(),
           ") do not divide the element count");
    }
    out[*inferred] = q ? *q : Dim::unknown();  // else checked when the sizes are known
  } else if (numel.isConst() && known.isConst() && known != numel) {
    fail(op, "cannot reshape ", op.inputTypeStr(0), " (", numel.str(), " elements) to ",
         dimListStr(out), " (", known.str(), " elements)");
  }
  return out;
}

DimList squeezeShape(const OpView& op) {
  DimList in = op.inputDims(0);
  IntList axes = intsFromAttrOrInput(op, "axes", 1);
  if (axes.present && !axes.values) {
    int64_t n = listLength(op, 1, "axes");
    if (n > 0) return DimList(in.size() - static_cast<size_t>(n), Dim::unknown());
  }
  std::vector<bool> drop(in.size(), false);
  if (!axes.values || axes.values->empty()) {  // no axes (or an empty list): every dim of size 1
    for (const Dim& d : in) {
      if (!d.isConst()) {
        fail(op, "without axes, Squeeze drops the dims of size 1, but the input is ",
             op.inputTypeStr(0), ", sized at run time: the output rank is unknown; give the axes");
      }
    }
    for (size_t d = 0; d < in.size(); ++d) drop[d] = in[d] == Dim(1);
  } else {
    for (int64_t a : normalizeAxes(op, *axes.values, static_cast<int64_t>(in.size()))) {
      auto d = static_cast<size_t>(a);
      if (in[d].isConst() && in[d] != Dim(1)) {
        fail(op, "cannot squeeze axis ", a, " of ", op.inputTypeStr(0), ": its size is ",
             in[d].str(), ", expected 1");
      }
      drop[d] = true;
    }
  }
  DimList out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!drop[d]) out.push_back(in[d]);
  }
  return out;
}

DimList unsqueezeShape(const OpView& op) {
  DimList in = op.inputDims(0);
  IntList axes = intsFromAttrOrInput(op, "axes", 1);
  if (!axes.present) fail(op, "axes are required (attribute before opset 13, input 1 from 13)");
  if (!axes.values) {
    return DimList(in.size() + static_cast<size_t>(listLength(op, 1, "axes")), Dim::unknown());
  }
  auto rank = static_cast<int64_t>(in.size() + axes.values->size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t a : normalizeAxes(op, *axes.values, rank)) inserted[static_cast<size_t>(a)] = true;
  DimList out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    out.push_back(inserted[static_cast<size_t>(d)] ? Dim(1) : in[next++]);
  }
  return out;
}

DimList flattenShape(const OpView& op) {
  DimList in = op.inputDims(0);
  auto rank = static_cast<int64_t>(in.size());
  auto axis = static_cast<size_t>(normalizeAxis(op, op.attrInt("axis", 1), rank, "axis", true));
  return {productOf(DimList(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(axis))),
          productOf(DimList(in.begin() + static_cast<std::ptrdiff_t>(axis), in.end()))};
}

DimRange shapeOpRange(const OpView& op) {
  auto rank = static_cast<int64_t>(op.inputShape(0).size());
  auto clamped = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  int64_t start = clamped(op.attrInt("start", 0));
  int64_t end = clamped(op.attrInt("end", rank));
  return {start, std::max(start, end)};
}

}  // namespace kiln::opdef
