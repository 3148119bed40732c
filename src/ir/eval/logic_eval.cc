// Constant evaluation of the comparisons, logic and Min/Max/Mod that exporters emit around shape
// values (e.g. Max(dim, 1), dim % 8, Less -> Where), so the shapes they feed stay static.
#include <cmath>
#include <cstdint>

#include "../element_access.h"
#include "../ops/infer_util.h"
#include "eval_util.h"
#include "evaluators.h"

namespace kiln::ir::eval {

namespace {

bool numericType(DataType t) {
  return t == DataType::int64() || t == DataType::int32() || t == DataType::float32() ||
         t == DataType::float64();
}

// A walker over OUT with one broadcast source per input of NODE.
StridedWalker walkerOf(const Node& node, const Shape& out) {
  std::vector<std::vector<int64_t>> strides;
  for (const Value* v : node.inputs) strides.push_back(broadcastStrides(v->type.shape, out));
  return StridedWalker(out, std::move(strides));
}

template <typename T>
bool compareAs(const std::string& op, T a, T b) {
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "LessOrEqual") return a <= b;
  return a >= b;  // GreaterOrEqual
}

// ONNX Mod: fmod=1 takes the dividend's sign (C's %), fmod=0 the divisor's (Python's %).
int64_t intMod(const Node& node, int64_t a, int64_t b, bool fmod) {
  if (b == 0) ops::fail(node, "integer Mod by zero while evaluating constants");
  if (b == -1) return 0;  // INT64_MIN % -1 traps in C++
  int64_t r = a % b;
  if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

}  // namespace

Outputs evalCompare(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& a = in(node, 0);
  const NDArray& b = in(node, 1);
  if (!numericType(a.dtype())) return std::nullopt;
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  StridedWalker walk = walkerOf(node, out[0].shape);
  bool isFloat = a.dtype().isFloat();
  for (int64_t i = 0; i < walk.size(); ++i, walk.next()) {
    bool r = isFloat
                 ? compareAs(node.op, loadDouble(a, walk.offset(0)), loadDouble(b, walk.offset(1)))
                 : compareAs(node.op, loadInt(a, walk.offset(0)), loadInt(b, walk.offset(1)));
    result.data<uint8_t>()[i] = r ? 1 : 0;
  }
  return std::vector<NDArray>{result};
}

Outputs evalLogical(const Node& node, const std::vector<TensorType>& out) {
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  StridedWalker walk = walkerOf(node, out[0].shape);
  for (int64_t i = 0; i < walk.size(); ++i, walk.next()) {
    bool a = in(node, 0).data<uint8_t>()[walk.offset(0)] != 0;
    if (node.op == "Not") {
      result.data<uint8_t>()[i] = a ? 0 : 1;
      continue;
    }
    bool b = in(node, 1).data<uint8_t>()[walk.offset(1)] != 0;
    bool r = node.op == "And" ? (a && b) : node.op == "Or" ? (a || b) : (a != b);
    result.data<uint8_t>()[i] = r ? 1 : 0;
  }
  return std::vector<NDArray>{result};
}

Outputs evalMinMax(const Node& node, const std::vector<TensorType>& out) {
  if (!numericType(in(node, 0).dtype())) return std::nullopt;
  bool isMax = node.op == "Max";
  bool isFloat = in(node, 0).dtype().isFloat();
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  StridedWalker walk = walkerOf(node, out[0].shape);
  for (int64_t i = 0; i < walk.size(); ++i, walk.next()) {
    if (isFloat) {
      double r = loadDouble(in(node, 0), walk.offset(0));
      for (size_t k = 1; k < node.inputs.size(); ++k) {
        double v = loadDouble(in(node, k), walk.offset(k));
        r = std::isnan(v) || std::isnan(r) ? NAN : (isMax ? std::max(r, v) : std::min(r, v));
      }
      storeDouble(result, i, r);
    } else {
      int64_t r = loadInt(in(node, 0), walk.offset(0));
      for (size_t k = 1; k < node.inputs.size(); ++k) {
        int64_t v = loadInt(in(node, k), walk.offset(k));
        r = isMax ? std::max(r, v) : std::min(r, v);
      }
      storeInt(result, i, r);
    }
  }
  return std::vector<NDArray>{result};
}

Outputs evalMod(const Node& node, const std::vector<TensorType>& out) {
  const NDArray& a = in(node, 0);
  const NDArray& b = in(node, 1);
  if (!numericType(a.dtype())) return std::nullopt;
  bool fmod = node.attrs.getInt("fmod", 0) != 0;
  NDArray result = NDArray::empty(out[0].shape, out[0].dtype);
  StridedWalker walk = walkerOf(node, out[0].shape);
  bool isFloat = a.dtype().isFloat();  // inference guarantees fmod=1 for floats
  for (int64_t i = 0; i < walk.size(); ++i, walk.next()) {
    if (isFloat) {
      storeDouble(result, i,
                  std::fmod(loadDouble(a, walk.offset(0)), loadDouble(b, walk.offset(1))));
    } else {
      storeInt(result, i,
               intMod(node, loadInt(a, walk.offset(0)), loadInt(b, walk.offset(1)), fmod));
    }
  }
  return std::vector<NDArray>{result};
}

}  // namespace kiln::ir::eval
