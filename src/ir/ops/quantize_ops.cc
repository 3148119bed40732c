// Type inference of the quantization ops the runtime executes: QuantizeLinear, DequantizeLinear,
// MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv.
#include "infer_util.h"
#include "kiln/ir/window.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

bool isQuantizedType(DataType t) {
  return t == DataType::uint8() || t == DataType::int8() || t == DataType::int32();
}

void requireQuantized(const Node& node, size_t i) {
  if (hasInput(node, i) && !isQuantizedType(inputType(node, i).dtype)) {
    fail(node, "input ", i, " is ", inputType(node, i).str(), "; expected uint8, int8 or int32");
  }
}

void inferQuantizeLinear(Node& node) {
  const TensorType& x = inputType(node, 0);
  requireFloat(node, 1);
  requireQuantized(node, 2);
  DataType out = hasInput(node, 2) ? inputType(node, 2).dtype : DataType::uint8();
  setOutput(node, 0, {out, x.shape});
}

void inferDequantizeLinear(Node& node) {
  requireQuantized(node, 0);
  requireFloat(node, 1);
  setOutput(node, 0, {DataType::float32(), inputType(node, 0).shape});
}

void inferMatMulInteger(Node& node) {
  requireQuantized(node, 0);
  requireQuantized(node, 1);
  setOutput(node, 0, TensorType::of(DataType::int32(), matmulShape(node, 0, 1)));
}

// QLinearMatMul (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp).
void inferQLinearMatMul(Node& node) {
  requireQuantized(node, 0);
  requireQuantized(node, 3);
  requireQuantized(node, 7);
  setOutput(node, 0, TensorType::of(inputType(node, 7).dtype, matmulShape(node, 0, 3)));
}

Shape convShape(Node& node, const TensorType& x, const TensorType& w) {
  if (x.rank() < 3 || w.rank() != x.rank()) {
    fail(node, "input ", x.str(), " and weight ", w.str(), " do not form a convolution");
  }
  int64_t group = node.attrs.getInt("group", 1);
  if (group < 1 || x.shape[1] != w.shape[1] * group || w.shape[0] % group != 0) {
    fail(node, "channels of ", x.str(), " and ", w.str(), " do not match group ", group);
  }
  WindowGeometry g = resolveWindow(node, Shape(x.shape.begin() + 2, x.shape.end()),
                                   Shape(w.shape.begin() + 2, w.shape.end()));
  Shape out = {x.shape[0], w.shape[0]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  return out;
}

void inferConvInteger(Node& node) {
  requireQuantized(node, 0);
  requireQuantized(node, 1);
  setOutput(node, 0, {DataType::int32(), convShape(node, inputType(node, 0), inputType(node, 1))});
}

// QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp[, B]).
void inferQLinearConv(Node& node) {
  requireQuantized(node, 0);
  requireQuantized(node, 3);
  requireQuantized(node, 7);
  setOutput(node, 0,
            {inputType(node, 7).dtype, convShape(node, inputType(node, 0), inputType(node, 3))});
}

}  // namespace

void registerQuantizeOps(const OpAdder& add) {
  add({.name = "QuantizeLinear",
       .minInputs = 2,
       .maxInputs = 3,
       .sinceVersion = 10,
       .inferRunTime = inferQuantizeLinear,
       .inferTypes = inferQuantizeLinear});
  add({.name = "DequantizeLinear",
       .minInputs = 2,
       .maxInputs = 3,
       .sinceVersion = 10,
       .inferRunTime = inferDequantizeLinear,
       .inferTypes = inferDequantizeLinear});
  add({.name = "MatMulInteger",
       .minInputs = 2,
       .maxInputs = 4,
       .sinceVersion = 10,
       .inferTypes = inferMatMulInteger});
  add({.name = "QLinearMatMul",
       .minInputs = 8,
       .maxInputs = 8,
       .sinceVersion = 10,
       .inferTypes = inferQLinearMatMul});
  add({.name = "ConvInteger",
       .minInputs = 2,
       .maxInputs = 4,
       .sinceVersion = 10,
       .inferTypes = inferConvInteger});
  add({.name = "QLinearConv",
       .minInputs = 8,
       .maxInputs = 9,
       .sinceVersion = 10,
       .inferTypes = inferQLinearConv});
}

}  // namespace kiln::ir::ops
