// Type inference of ops whose outputs come from attributes or constant inputs: Constant,
// ConstantOfShape and Range.
#include <cmath>

#include "../element_access.h"
#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir::ops {

namespace {

void inferConstant(Node& node) {
  static const char* const kForms[] = {"value", "value_float", "value_floats", "value_int",
                                       "value_ints"};
  for (const char* unsupported : {"sparse_value", "value_string", "value_strings"}) {
    if (node.attrs.has(unsupported)) {
      fail(node, "attribute '", unsupported,
           "' is not supported; expected one of value, "
           "value_float(s), value_int(s)");
    }
  }
  int count = 0;
  for (const char* form : kForms) count += node.attrs.has(form) ? 1 : 0;
  if (count != 1) {
    fail(node, "has ", count,
         " value attributes; expected exactly one of value, value_float, "
         "value_floats, value_int, value_ints");
  }
  TensorType t;
  if (node.attrs.has("value")) {
    const NDArray& v = node.attrs.getTensor("value");
    t = {v.dtype(), v.shape()};
  } else if (node.attrs.has("value_float")) {
    node.attrs.getFloat("value_float", 0);
    t = {DataType::float32(), {}};
  } else if (node.attrs.has("value_floats")) {
    t = {DataType::float32(), {int64_t(node.attrs.getFloats("value_floats", {}).size())}};
  } else if (node.attrs.has("value_int")) {
    node.attrs.getInt("value_int");
    t = {DataType::int64(), {}};
  } else {
    t = {DataType::int64(), {int64_t(node.attrs.getInts("value_ints", {}).size())}};
  }
  setOutput(node, 0, t);
}

void inferConstantOfShape(Node& node) {
  const TensorType& in = inputType(node, 0, "input");
  if (in.rank() != 1) fail(node, "input is ", in.str(), "; expected a 1-D shape tensor");
  std::vector<int64_t> shape = requireConstantInts(node, 0, "input");
  for (int64_t d : shape) {
    if (d < 0) fail(node, "shape ", listStr(shape), " has a negative dim");
  }
  DataType dtype = DataType::float32();
  if (node.attrs.has("value")) {
    const NDArray& v = node.attrs.getTensor("value");
    if (v.numel() != 1) {
      fail(node, "value is ", v.dtype().str(), runtime::shapeStr(v.shape()),
           "; expected a one-element tensor");
    }
    if (v.dtype().isString()) fail(node, "value is a string; kiln fills numeric tensors only");
    dtype = v.dtype();
  }
  setOutput(node, 0, {dtype, shape});
}

// ONNX Runtime's count: ceil((limit - start) / delta), the difference taken in the element type.
int64_t rangeCount(const Node& node, const NDArray& start, const NDArray& limit,
                   const NDArray& delta) {
  DataType t = start.dtype();
  if (isFloatType(t)) {
    double d = loadDouble(delta, 0);
    if (d == 0) fail(node, "delta is 0; expected a non-zero step");
    double diff = loadDouble(limit, 0) - loadDouble(start, 0);
    if (t == DataType::float32()) diff = static_cast<float>(diff);
    double n = std::ceil(diff / d);
    if (!(n < 9.0e18)) fail(node, "the range has ", n, " elements; too many");
    return n > 0 ? static_cast<int64_t>(n) : 0;
  }
  __int128 s = loadInt(start, 0);
  __int128 l = loadInt(limit, 0);
  __int128 d = loadInt(delta, 0);
  if (d == 0) fail(node, "delta is 0; expected a non-zero step");
  __int128 diff = l - s;
  if ((diff > 0) != (d > 0) || diff == 0) return 0;
  if (d < 0) {
    diff = -diff;
    d = -d;
  }
  return static_cast<int64_t>((diff + d - 1) / d);
}

void inferRange(Node& node) {
  static const char* const kNames[] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    const TensorType& t = inputType(node, i, kNames[i]);
    requireSameDtype(node, 0, i);
    if (t.numel() != 1 || t.rank() > 1)
      fail(node, kNames[i], " is ", t.str(), "; expected a scalar");
    if (!node.inputs[i]->isConstant()) {
      fail(node, kNames[i], " (input ", i,
           ") must be a constant at inference time (kiln needs "
           "static shapes)");
    }
  }
  DataType t = inputType(node, 0).dtype;
  if (!isFloatType(t) && !isSignedIntType(t)) {
    fail(node, "inputs have type ", t.str(), "; expected a float or signed integer type");
  }
  int64_t n = rangeCount(node, *node.inputs[0]->constant, *node.inputs[1]->constant,
                         *node.inputs[2]->constant);
  setOutput(node, 0, {t, {n}});
}

}  // namespace

void registerGeneratorOps(const OpAdder& add) {
  add({.name = "Constant",
       .opClass = OpClass::kOpaque,
       .minInputs = 0,
       .maxInputs = 0,
       .sinceVersion = 1,
       .inferTypes = inferConstant});
  add({.name = "ConstantOfShape",
       .opClass = OpClass::kOpaque,
       .sinceVersion = 9,
       .inferTypes = inferConstantOfShape});
  add({.name = "Range",
       .opClass = OpClass::kOpaque,
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 11,
       .inferTypes = inferRange});
}

}  // namespace kiln::ir::ops
