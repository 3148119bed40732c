// Helpers for IR unit tests: one-node graphs built in a line, typed constants, error capture.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"

namespace kiln::ir {
// gtest prints types as text in failure messages.
inline void PrintTo(const TensorType& t, std::ostream* os) { *os << t.str(); }
}  // namespace kiln::ir

namespace kiln::ir::testing {

inline TensorType f32(Shape s) { return {DataType::float32(), std::move(s)}; }
inline TensorType i64(Shape s) { return {DataType::int64(), std::move(s)}; }

template <typename T>
NDArray makeArray(const Shape& shape, DataType dtype, const std::vector<T>& values) {
  NDArray a = NDArray::empty(shape, dtype);
  EXPECT_EQ(static_cast<int64_t>(values.size()), a.numel());
  if (!values.empty()) std::memcpy(a.data(), values.data(), values.size() * sizeof(T));
  return a;
}

inline NDArray int64Array(const Shape& shape, const std::vector<int64_t>& v) {
  return makeArray(shape, DataType::int64(), v);
}
inline NDArray int32Array(const Shape& shape, const std::vector<int32_t>& v) {
  return makeArray(shape, DataType::int32(), v);
}
inline NDArray floatArray(const Shape& shape, const std::vector<float>& v) {
  return makeArray(shape, DataType::float32(), v);
}

template <typename T>
std::vector<T> values(const NDArray& a) {
  const T* p = a.data<T>();
  return std::vector<T>(p, p + a.numel());
}

// A graph holding one node under test; inputs and constants are created on demand.
class OneNode {
 public:
  Value* in(TensorType t) { return g.addInput(g.uniqueName("x"), std::move(t)); }
  Value* constant(NDArray data) { return g.addConstant(g.uniqueName("c"), std::move(data)); }
  Value* ints(const std::vector<int64_t>& v) {
    return constant(int64Array({static_cast<int64_t>(v.size())}, v));
  }

  Node* add(const std::string& op, std::vector<Value*> inputs, Attrs attrs = {},
            int numOutputs = 1) {
    std::vector<std::string> names;
    names.reserve(static_cast<size_t>(numOutputs));
    for (int i = 0; i < numOutputs; ++i) names.push_back(g.uniqueName("y"));
    return g.addNode(op, g.uniqueName("n"), std::move(inputs), names, std::move(attrs));
  }

  // Adds the node, infers its types and returns output 0's type.
  TensorType infer(const std::string& op, std::vector<Value*> inputs, Attrs attrs = {},
                   int numOutputs = 1) {
    Node* node = add(op, std::move(inputs), std::move(attrs), numOutputs);
    inferTypes(*node);
    return node->outputs[0]->type;
  }

  // The message of the kiln::Error that inference throws; fails the test when none is thrown.
  std::string error(const std::string& op, std::vector<Value*> inputs, Attrs attrs = {},
                    int numOutputs = 1) {
    Node* node = add(op, std::move(inputs), std::move(attrs), numOutputs);
    try {
      inferTypes(*node);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << op << ": expected a kiln::Error";
    return "";
  }

  Graph g;
};

inline Attrs attrs(std::initializer_list<std::pair<const std::string, AttrValue>> list) {
  Attrs a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

}  // namespace kiln::ir::testing
