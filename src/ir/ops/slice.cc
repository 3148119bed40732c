// Type inference of Slice: constant starts/ends/axes/steps with ONNX's clamping rules.
#include "slice.h"

#include <limits>

#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

int64_t clampTo(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

SliceRange clampRange(int64_t start, int64_t end, int64_t step, int64_t dim) {
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
    r.start = clampTo(start, 0, dim);
    end = clampTo(end, 0, dim);
    auto s = static_cast<uint64_t>(step);
    r.size = end > r.start
                 ? static_cast<int64_t>((static_cast<uint64_t>(end - r.start) + s - 1) / s)
                 : 0;
  } else {
    r.start = clampTo(start, 0, dim - 1);
    end = clampTo(end, -1, dim - 1);
    uint64_t s = uint64_t{0} - static_cast<uint64_t>(step);  // |step| without overflow
    r.size = r.start > end
                 ? static_cast<int64_t>((static_cast<uint64_t>(r.start - end) + s - 1) / s)
                 : 0;
  }
  if (r.size == 0) r.start = 0;
  return r;
}

std::vector<int64_t> sliceList(const Node& node, const char* name, size_t input) {
  std::optional<std::vector<int64_t>> v = intsFromAttrOrInput(node, name, input);
  return v ? *v : std::vector<int64_t>{};
}

void inferSlice(Node& node) {
  const TensorType& x = inputType(node, 0);
  Shape out;
  for (const SliceRange& r : resolveSlice(node)) out.push_back(r.size);
  setOutput(node, 0, {x.dtype, out});
}

}  // namespace

std::vector<SliceRange> resolveSlice(const Node& node) {
  const TensorType& x = inputType(node, 0);
  bool attrForm = node.attrs.has("starts");
  if (!attrForm && (!hasInput(node, 1) || !hasInput(node, 2))) {
    fail(node, "starts and ends are required (inputs 1 and 2 from opset 10, attributes before)");
  }
  std::vector<int64_t> starts = sliceList(node, "starts", 1);
  std::vector<int64_t> ends = sliceList(node, "ends", 2);
  std::optional<std::vector<int64_t>> axes = intsFromAttrOrInput(node, "axes", 3);
  std::vector<int64_t> steps = hasInput(node, 4) ? requireConstantInts(node, 4, "steps")
                                                 : std::vector<int64_t>(starts.size(), 1);
  if (!axes) {
    axes.emplace();
    for (size_t i = 0; i < starts.size(); ++i) axes->push_back(static_cast<int64_t>(i));
  }
  if (ends.size() != starts.size() || axes->size() != starts.size() ||
      steps.size() != starts.size()) {
    fail(node, "starts ", listStr(starts), ", ends ", listStr(ends), ", axes ", listStr(*axes),
         " and steps ", listStr(steps), " differ in length; expected equal lengths");
  }
  std::vector<int64_t> dims = normalizeAxes(node, *axes, x.rank());
  std::vector<SliceRange> ranges;
  for (int64_t d : x.shape) ranges.push_back({0, 1, d});
  for (size_t i = 0; i < dims.size(); ++i) {
    if (steps[i] == 0) fail(node, "steps ", listStr(steps), " contain 0; expected non-zero steps");
    auto d = static_cast<size_t>(dims[i]);
    ranges[d] = clampRange(starts[i], ends[i], steps[i], x.shape[d]);
  }
  return ranges;
}

void registerSliceOps(const OpAdder& add) {
  add({.name = "Slice",
       .opClass = OpClass::kInjective,
       .minInputs = 1,
       .maxInputs = 5,
       .sinceVersion = 1,
       .inferTypes = inferSlice});
}

}  // namespace kiln::ir::ops
