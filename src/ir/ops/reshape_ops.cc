// Type inference of ops that change a tensor's shape but not its elements' order: Flatten,
// Reshape, Squeeze, Unsqueeze; and Expand and Tile, which repeat elements.
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

int64_t product(const Shape& s, size_t begin, size_t end) {
  return runtime::shapeNumel(Shape(s.begin() + static_cast<std::ptrdiff_t>(begin),
                                   s.begin() + static_cast<std::ptrdiff_t>(end)));
}

void inferFlatten(Node& node) {
  const TensorType& x = inputType(node, 0);
  auto axis = static_cast<size_t>(
      normalizeAxis(node, node.attrs.getInt("axis", 1), x.rank(), "axis", /*inclusive=*/true));
  Shape out = {product(x.shape, 0, axis), product(x.shape, axis, x.shape.size())};
  setOutput(node, 0, {x.dtype, out});
}

Shape reshapeTarget(const Node& node, const TensorType& x, const std::vector<int64_t>& target) {
  bool allowZero = node.attrs.getInt("allowzero", 0) != 0;
  Shape out(target.size());
  int inferred = -1;
  bool hasZero = false;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t v = target[i];
    if (v == -1) {
      if (inferred >= 0) fail(node, "shape ", listStr(target), " has more than one -1");
      inferred = static_cast<int>(i);
      out[i] = 1;
    } else if (v < -1) {
      fail(node, "shape ", listStr(target), " has ", v, " at position ", i,
           "; expected dims >= -1");
    } else if (v == 0 && !allowZero) {
      if (i >= x.shape.size()) {
        fail(node, "shape ", listStr(target), " has 0 (copy the input dim) at position ", i,
             " but the input ", x.str(), " has only ", x.rank(), " dims");
      }
      out[i] = x.shape[i];
    } else {
      hasZero = hasZero || v == 0;
      out[i] = v;
    }
  }
  if (allowZero && hasZero && inferred >= 0) {
    fail(node, "shape ", listStr(target),
         " has both 0 and -1 with allowzero=1; expected at most "
         "one of them");
  }
  int64_t numel = x.numel();
  int64_t known = runtime::shapeNumel(out);
  if (inferred >= 0) {
    if (known == 0 || numel % known != 0) {
      fail(node, "cannot reshape ", x.str(), " (", numel, " elements) to ", listStr(target),
           ": the other dims (product ", known, ") do not divide the element count");
    }
    out[static_cast<size_t>(inferred)] = numel / known;
  } else if (known != numel) {
    fail(node, "cannot reshape ", x.str(), " (", numel, " elements) to ", listStr(out), " (", known,
         " elements)");
  }
  return out;
}

void inferReshape(Node& node) {
  const TensorType& x = inputType(node, 0);
  std::vector<int64_t> target;
  if (node.attrs.has("shape")) {  // opset < 5
    if (hasInput(node, 1)) fail(node, "shape is given both as attribute and as input 1");
    target = node.attrs.getInts("shape", {});
  } else {
    if (!hasInput(node, 1)) fail(node, "the shape input (input 1) is required");
    if (inputType(node, 1).rank() != 1) {
      fail(node, "shape input is ", inputType(node, 1).str(), "; expected a 1-D tensor");
    }
    target = requireConstantInts(node, 1, "shape");
  }
  setOutput(node, 0, {x.dtype, reshapeTarget(node, x, target)});
}

void inferSqueeze(Node& node) {
  const TensorType& x = inputType(node, 0);
  std::optional<std::vector<int64_t>> axes = intsFromAttrOrInput(node, "axes", 1);
  std::vector<bool> drop(x.shape.size(), false);
  if (!axes || axes->empty()) {  // an empty axes input means "all", as in ONNX Runtime
    for (size_t d = 0; d < x.shape.size(); ++d) drop[d] = x.shape[d] == 1;
  } else {
    for (int64_t a : normalizeAxes(node, *axes, x.rank())) {
      if (x.shape[static_cast<size_t>(a)] != 1) {
        fail(node, "cannot squeeze axis ", a, " of ", x.str(), ": its size is ",
             x.shape[static_cast<size_t>(a)], ", expected 1");
      }
      drop[static_cast<size_t>(a)] = true;
    }
  }
  Shape out;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    if (!drop[d]) out.push_back(x.shape[d]);
  }
  setOutput(node, 0, {x.dtype, out});
}

void inferUnsqueeze(Node& node) {
  const TensorType& x = inputType(node, 0);
  std::optional<std::vector<int64_t>> axes = intsFromAttrOrInput(node, "axes", 1);
  if (!axes) fail(node, "axes are required (attribute before opset 13, input 1 from 13)");
  auto rank = static_cast<int64_t>(x.shape.size() + axes->size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t a : normalizeAxes(node, *axes, rank)) inserted[static_cast<size_t>(a)] = true;
  Shape out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    out.push_back(inserted[static_cast<size_t>(d)] ? 1 : x.shape[next++]);
  }
  setOutput(node, 0, {x.dtype, out});
}

void inferExpand(Node& node) {
  const TensorType& x = inputType(node, 0);
  if (inputType(node, 1, "shape").rank() != 1) {
    fail(node, "shape input is ", inputType(node, 1).str(), "; expected a 1-D tensor");
  }
  std::vector<int64_t> shape = requireConstantInts(node, 1, "shape");
  for (int64_t d : shape) {
    if (d < 0) fail(node, "shape ", listStr(shape), " has a negative dim");
  }
  setOutput(node, 0, {x.dtype, broadcastShapes(node, x.shape, shape)});
}

void inferTile(Node& node) {
  const TensorType& x = inputType(node, 0);
  const TensorType& r = inputType(node, 1, "repeats");
  if (r.rank() != 1) fail(node, "repeats is ", r.str(), "; expected a 1-D tensor");
  std::vector<int64_t> repeats = requireConstantInts(node, 1, "repeats");
  if (static_cast<int64_t>(repeats.size()) != x.rank()) {
    fail(node, "repeats ", listStr(repeats), " has ", repeats.size(), " entries for input ",
         x.str(), "; expected one per dim (", x.rank(), ")");
  }
  Shape out = x.shape;
  for (size_t d = 0; d < out.size(); ++d) {
    if (repeats[d] < 0) fail(node, "repeats ", listStr(repeats), " has a negative entry");
    if (__builtin_mul_overflow(out[d], repeats[d], &out[d])) {
      fail(node, "dim ", d, " of the output overflows int64");
    }
  }
  setOutput(node, 0, {x.dtype, out});
}

}  // namespace

void registerReshapeOps(const OpAdder& add) {
  add({.name = "Flatten",
       .opClass = OpClass::kInjective,
       .sinceVersion = 1,
       .inferTypes = inferFlatten});
  add({.name = "Reshape",
       .opClass = OpClass::kInjective,
       .minInputs = 1,
       .maxInputs = 2,
       .sinceVersion = 1,
       .inferTypes = inferReshape});
  add({.name = "Squeeze",
       .opClass = OpClass::kInjective,
       .maxInputs = 2,
       .sinceVersion = 1,
       .inferTypes = inferSqueeze});
  add({.name = "Unsqueeze",
       .opClass = OpClass::kInjective,
       .maxInputs = 2,
       .sinceVersion = 1,
       .inferTypes = inferUnsqueeze});
  add({.name = "Expand",
       .opClass = OpClass::kBroadcast,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 8,
       .inferTypes = inferExpand});
  add({.name = "Tile",
       .opClass = OpClass::kInjective,
       .minInputs = 2,
       .maxInputs = 2,
       .sinceVersion = 6,
       .inferTypes = inferTile});
}

}  // namespace kiln::ir::ops
