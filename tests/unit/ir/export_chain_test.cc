// The shape chain exporters emit for flatten-like reshapes (Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape) folds to a constant target while importing, node by node.
#include "ir_test_util.h"
#include "kiln/ir/constant_eval.h"
#include "kiln/ir/printer.h"

namespace kiln::ir {
namespace {

using testing::f32;

// What an importer does per node: add it, infer it, and replace it with constants when it can
// be evaluated. Returns the value standing for the node's first output.
Value* importNode(Graph& g, const std::string& op, std::vector<Value*> inputs, Attrs attrs = {}) {
  std::string name = g.uniqueName(op);
  Node* node = g.addNode(op, name, std::move(inputs), {name}, std::move(attrs));
  inferTypes(*node);
  std::optional<std::vector<NDArray>> folded = evaluateConstant(*node);
  if (!folded) return node->outputs[0];
  Value* c = g.addConstant(g.uniqueName(name + "_folded"), (*folded)[0]);
  EXPECT_EQ(c->type, node->outputs[0]->type) << op;
  g.replaceAllUses(node->outputs[0], c);
  g.removeNode(node);
  return c;
}

void buildChain(Graph& g, bool opset11) {
  Value* x = g.addInput("x", f32({2, 3, 4, 5}));
  Value* shape = importNode(g, "Shape", {x});
  Value* zero = g.addConstant("zero", testing::int64Array({}, {0}));
  Value* batch = importNode(g, "Gather", {shape, zero}, testing::attrs({{"axis", int64_t{0}}}));
  Value* batch1 =
      opset11
          ? importNode(g, "Unsqueeze", {batch}, testing::attrs({{"axes", std::vector<int64_t>{0}}}))
          : importNode(g, "Unsqueeze",
                       {batch, g.addConstant("axes", testing::int64Array({1}, {0}))});
  Value* minus1 = g.addConstant("minus1", testing::int64Array({1}, {-1}));
  Value* target = importNode(g, "Concat", {batch1, minus1}, testing::attrs({{"axis", int64_t{0}}}));
  Value* y = importNode(g, "Reshape", {x, target});
  g.outputs().push_back(y);
}

TEST(ExportChainTest, FoldsToConstantReshapeTarget) {
  for (bool opset11 : {false, true}) {
    Graph g;
    buildChain(g, opset11);
    ASSERT_EQ(g.nodes().size(), 1u) << printGraph(g);
    const Node* reshape = g.nodes()[0];
    EXPECT_EQ(reshape->op, "Reshape");
    ASSERT_TRUE(reshape->inputs[1]->isConstant());
    EXPECT_EQ(testing::values<int64_t>(*reshape->inputs[1]->constant),
              (std::vector<int64_t>{2, -1}));
    EXPECT_EQ(g.outputs()[0]->type, f32({2, 60}));
    g.removeDeadCode();
    EXPECT_EQ(g.constants().size(), 1u) << printGraph(g);
  }
}

TEST(ExportChainTest, ArithmeticOnShapes) {
  // target = [Shape(x)[1] * Shape(x)[2], -1] with int64 Mul, as in attention reshapes.
  Graph g;
  Value* x = g.addInput("x", f32({2, 3, 4}));
  Value* shape = importNode(g, "Shape", {x});
  Value* d1 = importNode(g, "Gather", {shape, g.addConstant("i1", testing::int64Array({1}, {1}))});
  Value* d2 = importNode(g, "Gather", {shape, g.addConstant("i2", testing::int64Array({1}, {2}))});
  Value* prod = importNode(g, "Mul", {d1, d2});
  Value* target =
      importNode(g, "Concat", {g.addConstant("m1", testing::int64Array({1}, {-1})), prod},
                 testing::attrs({{"axis", int64_t{0}}}));
  Value* y = importNode(g, "Reshape", {x, target});
  ASSERT_TRUE(target->isConstant());
  EXPECT_EQ(testing::values<int64_t>(*target->constant), (std::vector<int64_t>{-1, 12}));
  EXPECT_EQ(y->type, f32({2, 12}));
}

}  // namespace
}  // namespace kiln::ir
