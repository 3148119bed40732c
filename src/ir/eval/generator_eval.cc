// Constant evaluation of ops that create data: Constant, Shape, Size, ConstantOfShape and Range.
#include <cstring>
#include <vector>

#include "../element_access.h"
#include "evaluators.h"
#include "kiln/opdef/range.h"
#include "kiln/support/error.h"

namespace kiln::ir::eval {

Outputs evalConstant(const Node& node, const std::vector<TensorType>& out) {
  const Attrs& a = node.attrs;
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  if (a.has("value")) {
    result.copyFrom(a.getTensor("value"));
  } else if (a.has("value_float")) {
    storeDouble(result, 0, a.getFloat("value_float", 0));
  } else if (a.has("value_int")) {
    storeInt(result, 0, a.getInt("value_int"));
  } else if (a.has("value_floats")) {
    std::vector<double> v = a.getFloats("value_floats", {});
    for (size_t i = 0; i < v.size(); ++i) storeDouble(result, static_cast<int64_t>(i), v[i]);
  } else {
    std::vector<int64_t> v = a.getInts("value_ints", {});
    for (size_t i = 0; i < v.size(); ++i) storeInt(result, static_cast<int64_t>(i), v[i]);
  }
  return std::vector<NDArray>{result};
}

Outputs evalShape(const Node& node, const std::vector<TensorType>& out) {
  const Shape& shape = node.inputs[0]->type.shape;
  auto rank = static_cast<int64_t>(shape.size());
  int64_t start = node.attrs.getInt("start", 0);
  if (start < 0) start += rank;
  start = start < 0 ? 0 : (start > rank ? rank : start);
  NDArray result = NDArray::empty(out[0].shape, DataType::int64());
  for (int64_t i = 0; i < out[0].numel(); ++i) {
    result.data<int64_t>()[i] = shape[static_cast<size_t>(start + i)];
  }
  return std::vector<NDArray>{result};
}

Outputs evalSize(const Node& node, const std::vector<TensorType>& out) {
  NDArray result = NDArray::empty(out[0].shape, DataType::int64());
  *result.data<int64_t>() = node.inputs[0]->type.numel();
  return std::vector<NDArray>{result};
}

Outputs evalConstantOfShape(const Node& node, const std::vector<TensorType>& out) {
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  size_t bytes = out[0].dtype.bytes();
  std::vector<char> value(bytes, 0);  // default: float32 zero
  if (node.attrs.has("value"))
    std::memcpy(value.data(), node.attrs.getTensor("value").data(), bytes);
  auto* dst = static_cast<char*>(result.data());
  for (int64_t i = 0; i < result.numel(); ++i)
    std::memcpy(dst + i * int64_t(bytes), value.data(), bytes);
  return std::vector<NDArray>{result};
}

// The values of src/opdef's rangeFill, accumulated in the element type (float16 and bfloat16 in
// double, then rounded).
Outputs evalRange(const Node& node, const std::vector<TensorType>& out) {
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  DataType t = out[0].dtype;
  int64_t n = out[0].numel();
  if (t == DataType::float32()) {
    opdef::rangeFill(static_cast<float>(loadDouble(in(node, 0), 0)),
                     static_cast<float>(loadDouble(in(node, 2), 0)), n, result.data<float>());
  } else if (t.isFloat()) {
    std::vector<double> v(static_cast<size_t>(n));
    opdef::rangeFill(loadDouble(in(node, 0), 0), loadDouble(in(node, 2), 0), n, v.data());
    for (int64_t i = 0; i < n; ++i) storeDouble(result, i, v[static_cast<size_t>(i)]);
  } else {
    std::vector<int64_t> v(static_cast<size_t>(n));
    opdef::rangeFill(loadInt(in(node, 0), 0), loadInt(in(node, 2), 0), n, v.data());
    for (int64_t i = 0; i < n; ++i) storeInt(result, i, v[static_cast<size_t>(i)]);
  }
  return std::vector<NDArray>{result};
}

}  // namespace kiln::ir::eval
