// Slice's ranges from its arguments, as ONNX (and ONNX Runtime, for INT_MAX ends) define them.
#include "kiln/opdef/slice.h"

#include <algorithm>
#include <limits>

#include "kiln/opdef/axes.h"

namespace kiln::opdef {

SliceRange clampSliceRange(int64_t start, int64_t end, int64_t step, int64_t dim) {
  SliceRange r;
  r.step = step;
  if (dim == 0) return r;
  // INT_MAX ends mean "to the end" in the step's direction (numpy's None), as in ONNX Runtime.
  bool toEnd =
      end == std::numeric_limits<int64_t>::max() || end == std::numeric_limits<int32_t>::max();
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (toEnd) end = step < 0 ? -1 : dim;
  if (step > 0) {
    r.start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    auto s = static_cast<uint64_t>(step);
    r.size = end > r.start
                 ? static_cast<int64_t>((static_cast<uint64_t>(end - r.start) + s - 1) / s)
                 : 0;
  } else {
    r.start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    uint64_t s = uint64_t{0} - static_cast<uint64_t>(step);  // |step| without overflow
    r.size = r.start > end
                 ? static_cast<int64_t>((static_cast<uint64_t>(r.start - end) + s - 1) / s)
                 : 0;
  }
  if (r.size == 0) r.start = 0;
  return r;
}

namespace {

// Every dim of X unknown: the sliced axes themselves are known only at run time.
std::vector<SliceRange> allUnknown(const Dims& x) {
  return std::vector<SliceRange>(x.size(), SliceRange{0, 1, kUnknownDim});
}

}  // namespace

std::vector<SliceRange> sliceRanges(const OpView& op) {
  Dims x = op.inputShape(0);
  auto rank = static_cast<int64_t>(x.size());
  bool attrForm = op.hasAttr("starts");
  if (!attrForm && (!op.hasInput(1) || !op.hasInput(2))) {
    fail(op, "starts and ends are required (inputs 1 and 2 from opset 10, attributes before)");
  }
  IntList starts = intsFromAttrOrInput(op, "starts", 1);
  IntList ends = intsFromAttrOrInput(op, "ends", 2);
  IntList axes = intsFromAttrOrInput(op, "axes", 3);
  IntList steps;
  if (op.hasInput(4)) steps = {true, op.inputInts(4, "steps")};
  if (axes.present && !axes.values) return allUnknown(x);
  if (!starts.values || !ends.values || (steps.present && !steps.values)) {
    if (!axes.present) return allUnknown(x);
    std::vector<SliceRange> ranges;
    for (int64_t d : x) ranges.push_back({0, 1, d, true});
    for (int64_t d : normalizeAxes(op, *axes.values, rank)) {
      ranges[static_cast<size_t>(d)] = {0, 1, kUnknownDim};
    }
    return ranges;
  }
  size_t n = starts.values->size();
  std::vector<int64_t> axisList, stepList(n, 1);
  if (axes.present) {
    axisList = *axes.values;
  } else {
    for (size_t i = 0; i < n; ++i) axisList.push_back(static_cast<int64_t>(i));
  }
  if (steps.present) stepList = *steps.values;
  if (ends.values->size() != n || axisList.size() != n || stepList.size() != n) {
    fail(op, "starts ", listStr(*starts.values), ", ends ", listStr(*ends.values), ", axes ",
         listStr(axisList), " and steps ", listStr(stepList),
         " differ in length; expected equal lengths");
  }
  std::vector<int64_t> dims = normalizeAxes(op, axisList, rank);
  std::vector<SliceRange> ranges;
  for (int64_t d : x) ranges.push_back({0, 1, d, true});
  for (size_t i = 0; i < n; ++i) {
    if (stepList[i] == 0) {
      fail(op, "steps ", listStr(stepList), " contain 0; expected non-zero steps");
    }
    auto d = static_cast<size_t>(dims[i]);
    if (x[d] == kUnknownDim) {
      ranges[d] = {0, stepList[i], kUnknownDim};
    } else {
      ranges[d] = clampSliceRange((*starts.values)[i], (*ends.values)[i], stepList[i], x[d]);
    }
  }
  return ranges;
}

Dims sliceShape(const std::vector<SliceRange>& ranges) {
  Dims out;
  for (const SliceRange& r : ranges) out.push_back(r.size);
  return out;
}

namespace {

// Whether A <= B for every size the symbols' BOUNDS allow.
bool provablyAtMost(const Dim& a, const Dim& b, const DimBounds& bounds) {
  std::optional<SizeRange> r = (b - a).range(bounds);
  return r && r->min >= 0;
}

// A unit-step slice [START, END) of a dim of size DIM where the three are sizes in the graph's
// symbols: it starts at START and holds END - START when the bounds prove that ONNX's clamping
// changes nothing (0 <= START <= END <= DIM, an END past DIM taken as DIM); unknown otherwise.
struct SymbolicRange {
  Dim start, size;
};
SymbolicRange symbolicSliceRange(Dim start, Dim end, const Dim& dim, const DimBounds& bounds) {
  constexpr int64_t kToEnd = int64_t{1} << 31;  // INT_MAX ends and larger mean "to the end"
  if (start.isConst() && start.value() < 0) start = dim + start;
  if (end.isConst() && end.value() >= kToEnd) end = dim;
  if (end.isConst() && end.value() < 0) end = dim + end;
  if (provablyAtMost(dim, end, bounds)) end = dim;
  bool inRange = provablyAtMost(Dim(0), start, bounds) && provablyAtMost(start, end, bounds) &&
                 provablyAtMost(end, dim, bounds);
  if (!inRange) return {Dim::unknown(), Dim::unknown()};
  return {start, end - start};
}

// The sliced dims whose starts or ends are sizes in the graph's symbols (a cache length, a
// sequence length): their unit-step slices sized and started by symbolicSliceRange.
void sliceSymbolicDims(const OpView& op, SliceDims& out) {
  if (op.hasAttr("starts") || !op.hasInput(1) || !op.hasInput(2)) return;
  std::optional<DimList> starts = op.inputSizes(1, "starts"), ends = op.inputSizes(2, "ends");
  IntList axes = intsFromAttrOrInput(op, "axes", 3);
  std::optional<std::vector<int64_t>> steps =
      op.hasInput(4) ? op.inputInts(4, "steps") : std::vector<int64_t>(out.sizes.size(), 1);
  if (!starts || !ends || (axes.present && !axes.values) || !steps) return;
  std::vector<int64_t> axisList;
  for (size_t i = 0; i < starts->size(); ++i) {
    axisList.push_back(axes.present ? (*axes.values).at(i) : static_cast<int64_t>(i));
  }
  if (ends->size() != starts->size() || axisList.size() != starts->size()) return;
  DimList in = op.inputDims(0);
  std::vector<int64_t> dims = normalizeAxes(op, axisList, static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < dims.size(); ++i) {
    auto d = static_cast<size_t>(dims[i]);
    if (out.sizes[d].isUnknown() && i < steps->size() && (*steps)[i] == 1) {
      SymbolicRange r = symbolicSliceRange((*starts)[i], (*ends)[i], in[d], op.dimBounds());
      out.sizes[d] = r.size;
      out.starts[d] = r.start;
      out.steps[d] = 1;
    }
  }
}

}  // namespace

SliceDims sliceDimRanges(const OpView& op) {
  std::vector<SliceRange> ranges = sliceRanges(op);
  DimList in = op.inputDims(0);
  SliceDims out;
  for (size_t d = 0; d < ranges.size(); ++d) {
    const SliceRange& r = ranges[d];
    bool known = r.size != kUnknownDim;
    out.sizes.push_back(r.whole ? in[d] : Dim::fromShape(r.size));
    out.starts.push_back(r.whole ? Dim(0) : known ? Dim(r.start) : Dim::unknown());
    out.steps.push_back(r.whole ? 1 : r.step);
  }
  sliceSymbolicDims(op, out);
  return out;
}

DimList sliceDims(const OpView& op) { return sliceDimRanges(op).sizes; }

}  // namespace kiln::opdef
