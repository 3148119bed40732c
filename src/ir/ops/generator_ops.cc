// Type inference of ops whose outputs come from attributes or constant inputs: Constant,
// ConstantOfShape and Range (their shapes by src/opdef's rules, as at run time).
#include "infer_util.h"
#include "kiln/ir/node_view.h"
#include "kiln/opdef/range.h"
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
  opdef::DimList shape = opdef::dimsFromInput(NodeView(node), 0, "input");  // as at run time
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
  setOutput(node, 0, TensorType::of(dtype, shape));
}

// Range's length from src/opdef: known when start, limit and delta are constants.
void inferRange(Node& node) {
  for (size_t i = 0; i < 3; ++i) requireSameDtype(node, 0, i);
  DataType t = inputType(node, 0).dtype;
  if (!isFloatType(t) && !isSignedIntType(t)) {
    fail(node, "inputs have type ", t.str(), "; expected a float or signed integer type");
  }
  setOutput(node, 0,
            TensorType::of(
                t, opdef::rangeShape(NodeView(node), isFloatType(t), t == DataType::float32())));
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
       .shapeInputs = {0},
       .inferRunTime = inferConstantOfShape,
       .inferTypes = inferConstantOfShape,
       .symbolicSizes = true});
  add({.name = "Range",
       .opClass = OpClass::kOpaque,
       .minInputs = 3,
       .maxInputs = 3,
       .sinceVersion = 11,
       .shapeInputs = {0, 1, 2},
       .inferRunTime = inferRange,
       .inferTypes = inferRange,
       .symbolicSizes = true,
       .symbolicKernel = true});
}

}  // namespace kiln::ir::ops
