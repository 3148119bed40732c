// Constant evaluation of arithmetic on shape values: broadcasting Add/Sub/Mul/Div, Neg, Equal,
// Where, and Cast. Integers are computed in int64 with wrap-around, floats in double and rounded
// once to the element type (exact for a single +, -, *, /).
#include <cstdint>

#include "../element_access.h"
#include "../ops/infer_util.h"
#include "eval_util.h"
#include "evaluators.h"

namespace kiln::ir::eval {

namespace {

bool arithmeticType(DataType t) {
  return t == DataType::int64() || t == DataType::int32() || t == DataType::float32() ||
         t == DataType::float64();
}

int64_t wrap(uint64_t v) { return static_cast<int64_t>(v); }

int64_t intOp(const Node& node, char op, int64_t a, int64_t b) {
  auto ua = static_cast<uint64_t>(a);
  auto ub = static_cast<uint64_t>(b);
  switch (op) {
    case '+':
      return wrap(ua + ub);
    case '-':
      return wrap(ua - ub);
    case '*':
      return wrap(ua * ub);
    default:
      if (b == 0) ops::fail(node, "integer division by zero while evaluating constants");
      if (b == -1) return wrap(uint64_t{0} - ua);  // INT64_MIN / -1 wraps instead of trapping
      return a / b;  // C++ truncates toward zero, as ONNX integer Div does
  }
}

double floatOp(char op, double a, double b) {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    default:
      return a / b;
  }
}

char opChar(const std::string& op) {
  if (op == "Add") return '+';
  if (op == "Sub") return '-';
  if (op == "Mul") return '*';
  return '/';
}

}  // namespace

Outputs evalArithmetic(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& a = in(node, 0);
  const NDArray& b = in(node, 1);
  if (!arithmeticType(a.dtype())) return std::nullopt;
  char op = opChar(node.op);
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  StridedWalker walk(out[0].shape, {broadcastStrides(a.shape(), out[0].shape),
                                    broadcastStrides(b.shape(), out[0].shape)});
  bool isFloat = a.dtype().isFloat();
  for (int64_t i = 0; i < walk.size(); ++i, walk.next()) {
    if (isFloat) {
      storeDouble(result, i,
                  floatOp(op, loadDouble(a, walk.offset(0)), loadDouble(b, walk.offset(1))));
    } else {
      storeInt(result, i, intOp(node, op, loadInt(a, walk.offset(0)), loadInt(b, walk.offset(1))));
    }
  }
  return std::vector<NDArray>{result};
}

Outputs evalNeg(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& a = in(node, 0);
  if (!arithmeticType(a.dtype())) return std::nullopt;
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (a.dtype().isFloat()) {
      storeDouble(result, i, -loadDouble(a, i));
    } else {
      storeInt(result, i, wrap(uint64_t{0} - static_cast<uint64_t>(loadInt(a, i))));
    }
  }
  return std::vector<NDArray>{result};
}

Outputs evalEqual(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& a = in(node, 0);
  const NDArray& b = in(node, 1);
  if (!arithmeticType(a.dtype()) && !a.dtype().isBool()) return std::nullopt;
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  StridedWalker walk(out[0].shape, {broadcastStrides(a.shape(), out[0].shape),
                                    broadcastStrides(b.shape(), out[0].shape)});
  bool isFloat = a.dtype().isFloat();
  for (int64_t i = 0; i < walk.size(); ++i, walk.next()) {
    bool eq = isFloat ? loadDouble(a, walk.offset(0)) == loadDouble(b, walk.offset(1))
                      : loadInt(a, walk.offset(0)) == loadInt(b, walk.offset(1));
    result.data<uint8_t>()[i] = eq ? 1 : 0;
  }
  return std::vector<NDArray>{result};
}

Outputs evalWhere(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& cond = in(node, 0);
  const NDArray& x = in(node, 1);
  const NDArray& y = in(node, 2);
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  size_t bytes = out[0].dtype.bytes();
  StridedWalker walk(out[0].shape, {broadcastStrides(cond.shape(), out[0].shape),
                                    broadcastStrides(x.shape(), out[0].shape),
                                    broadcastStrides(y.shape(), out[0].shape)});
  for (int64_t i = 0; i < walk.size(); ++i, walk.next()) {
    bool pick = cond.data<uint8_t>()[walk.offset(0)] != 0;
    if (pick) {
      copyElement(result, i, x, walk.offset(1), bytes);
    } else {
      copyElement(result, i, y, walk.offset(2), bytes);
    }
  }
  return std::vector<NDArray>{result};
}

Outputs evalCast(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& a = in(node, 0);
  DataType from = a.dtype();
  DataType to = out[0].dtype;
  if (!isScalarElementType(from) || !isScalarElementType(to)) return std::nullopt;
  NDArray result = NDArray::empty(out[0].shape, to);
  bool fromFloat = ops::isFloatType(from);
  bool toFloat = ops::isFloatType(to);
  for (int64_t i = 0; i < a.numel(); ++i) {
    // Through double from a float (to an integer: truncates, saturating) and from uint64 to a
    // float (above INT64_MAX loadInt would wrap).
    if (fromFloat || (toFloat && from.isUInt() && from.bits == 64)) {
      storeDouble(result, i, loadDouble(a, i));
    } else {
      storeInt(result, i, loadInt(a, i));
    }
  }
  return std::vector<NDArray>{result};
}

}  // namespace kiln::ir::eval
