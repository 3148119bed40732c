// The reference evaluator behind kiln compare: every registered ONNX op has a reference, nodes and
// graphs evaluate to hand-computed results, and bad inputs are refused clearly.
#include "kiln/ir/reference_eval.h"

#include <cmath>

#include "ir_test_util.h"
#include "kiln/runtime/runtime_op.h"

namespace kiln::ir {
namespace {

using testing::f32;
using testing::floatArray;
using testing::values;

// Ops only the runtime executes are evaluated by it; their oracle is the ONNX suite's data.
TEST(ReferenceEval, EveryRegisteredOnnxOpHasAReferenceOrRunsInTheRuntime) {
  for (const std::string& op : registeredOps()) {
    if (op.rfind("kiln.", 0) == 0) continue;  // compiler-internal ops never reach the reference
    EXPECT_TRUE(reference::hasReference(op) || runtime::findRuntimeOp(op) != nullptr) << op;
  }
  EXPECT_FALSE(reference::hasReference("NoSuchOp"));
}

// y = Softmax(Relu(x) + c) over the last axis.
TEST(ReferenceEval, GraphFromInputs) {
  Graph g;
  Value* x = g.addInput("x", f32({2, 2}));
  Value* c = g.addConstant("c", floatArray({2}, {1.0f, 0.0f}));
  Node* relu = g.addNode("Relu", "relu", {x}, {"r"});
  Node* add = g.addNode("Add", "add", {relu->outputs[0], c}, {"s"});
  Node* softmax = g.addNode("Softmax", "softmax", {add->outputs[0]}, {"y"});
  for (Node* n : g.nodes()) inferTypes(*n);
  g.outputs().push_back(softmax->outputs[0]);
  std::vector<std::string> seen;
  std::vector<NDArray> out = reference::evaluateGraph(
      g, {floatArray({2, 2}, {-3.0f, 2.0f, 0.5f, 0.5f})},
      [&](const Node& n, const std::vector<NDArray>&) { seen.push_back(n.name); });
  EXPECT_EQ(seen, (std::vector<std::string>{"relu", "add", "softmax"}));
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> y = values<float>(out[0]);
  // Row 0: softmax([1, 2]); row 1: softmax([1.5, 0.5]).
  EXPECT_NEAR(y[0], 1 / (1 + std::exp(1.0)), 1e-7);
  EXPECT_NEAR(y[1], 1 / (1 + std::exp(-1.0)), 1e-7);
  EXPECT_NEAR(y[2], 1 / (1 + std::exp(-1.0)), 1e-7);
  EXPECT_NEAR(y[3], 1 / (1 + std::exp(1.0)), 1e-7);
}

TEST(ReferenceEval, ConvWithSamePadding) {
  testing::OneNode t;
  Value* x = t.in(f32({1, 1, 3, 3}));
  Value* w = t.constant(floatArray({1, 1, 3, 3}, std::vector<float>(9, 1.0f)));
  Node* n = t.add("Conv", {x, w}, testing::attrs({{"auto_pad", std::string("SAME_UPPER")}}));
  inferTypes(*n);
  std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<NDArray> out =
      reference::evaluateNode(*n, {floatArray({1, 1, 3, 3}, in), *w->constant}, 13);
  // Each output sums the 3x3 neighbourhood inside the image.
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{12, 21, 16, 27, 45, 33, 24, 39, 28}));
}

TEST(ReferenceEval, RefusesInputsOfAnotherType) {
  Graph g;
  Value* x = g.addInput("x", f32({2}));
  Node* relu = g.addNode("Relu", "relu", {x}, {"y"});
  inferTypes(*relu);
  g.outputs().push_back(relu->outputs[0]);
  try {
    reference::evaluateGraph(g, {floatArray({3}, {1, 2, 3})});
    ADD_FAILURE() << "expected a kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input 'x' is float32[3]; expected float32[2]"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::ir
