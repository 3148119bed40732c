// Graph mutation keeps values, uses and topological order consistent.
#include <algorithm>

#include "ir_test_util.h"
#include "kiln/ir/verifier.h"

namespace kiln::ir {
namespace {

using testing::f32;

bool before(const Graph& g, const Node* a, const Node* b) {
  auto ia = std::find(g.nodes().begin(), g.nodes().end(), a);
  auto ib = std::find(g.nodes().begin(), g.nodes().end(), b);
  return ia < ib;
}

class GraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    x = g.addInput("x", f32({2, 3}));
    relu = g.addNode("Relu", "relu", {x}, {"r"});
    inferTypes(*relu);
    sig = g.addNode("Sigmoid", "sig", {relu->outputs[0]}, {"s"});
    inferTypes(*sig);
    g.outputs().push_back(sig->outputs[0]);
  }
  Graph g;
  Value* x = nullptr;
  Node* relu = nullptr;
  Node* sig = nullptr;
};

TEST_F(GraphTest, AddNodeAppendsAndWiresProducers) {
  ASSERT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(g.nodes()[0], relu);
  EXPECT_EQ(relu->outputs[0]->producer, relu);
  EXPECT_EQ(relu->outputs[0]->outputIndex, 0);
  EXPECT_EQ(relu->outputs[0]->name, "r");
  EXPECT_EQ(sig->outputs[0]->type, f32({2, 3}));
  EXPECT_EQ(g.findValue("r"), relu->outputs[0]);
  EXPECT_EQ(g.findValue("nope"), nullptr);
  EXPECT_NO_THROW(verifyGraph(g));
}

TEST_F(GraphTest, EmptyNamesAreGenerated) {
  Node* n = g.addNode("Relu", "", {x}, {""});
  EXPECT_FALSE(n->outputs[0]->name.empty());
  EXPECT_EQ(n->name, n->outputs[0]->name);
  EXPECT_NE(n->outputs[0]->name, "r");
}

TEST_F(GraphTest, InsertNodeGoesBeforeAnchor) {
  Node* tanh = g.insertNode(sig, "Tanh", "tanh", {relu->outputs[0]}, {"t"});
  ASSERT_EQ(g.nodes().size(), 3u);
  EXPECT_EQ(g.nodes()[1], tanh);
  EXPECT_TRUE(before(g, relu, tanh));
  EXPECT_TRUE(before(g, tanh, sig));
}

TEST_F(GraphTest, InsertNodeRejectsInputsProducedLater) {
  EXPECT_THROW(g.insertNode(relu, "Tanh", "bad", {sig->outputs[0]}, {"t"}), InternalError);
}

TEST_F(GraphTest, UsersAndGraphOutputs) {
  Node* second = g.addNode("Exp", "exp", {relu->outputs[0]}, {"e"});
  std::vector<Node*> users = g.users(relu->outputs[0]);
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users[0], sig);
  EXPECT_EQ(users[1], second);
  EXPECT_TRUE(g.isGraphOutput(sig->outputs[0]));
  EXPECT_FALSE(g.isGraphOutput(relu->outputs[0]));
}

TEST_F(GraphTest, ReplaceAllUsesRewiresNodesAndGraphOutputs) {
  Node* tanh = g.addNode("Tanh", "tanh", {x}, {"t"});
  inferTypes(*tanh);
  g.replaceAllUses(relu->outputs[0], tanh->outputs[0]);
  EXPECT_EQ(sig->inputs[0], tanh->outputs[0]);
  // The new producer came after the user: nodes were reordered.
  EXPECT_TRUE(before(g, tanh, sig));
  EXPECT_NO_THROW(verifyGraph(g));

  g.replaceAllUses(sig->outputs[0], tanh->outputs[0]);
  EXPECT_EQ(g.outputs()[0], tanh->outputs[0]);
}

TEST_F(GraphTest, ReplaceAllUsesSkipsTheReplacementsOwnInputs) {
  // y = Exp(r); replace r by y everywhere except in Exp itself: Exp goes between relu and sig.
  Node* exp = g.addNode("Exp", "exp", {relu->outputs[0]}, {"e"});
  inferTypes(*exp);
  g.replaceAllUses(relu->outputs[0], exp->outputs[0]);
  EXPECT_EQ(exp->inputs[0], relu->outputs[0]);
  EXPECT_EQ(sig->inputs[0], exp->outputs[0]);
  EXPECT_TRUE(before(g, exp, sig));
  EXPECT_NO_THROW(verifyGraph(g));
}

TEST_F(GraphTest, ReplaceNodeHandsOnUsesAndNames) {
  std::string reluName = relu->name, outName = relu->outputs[0]->name;
  Node* tanh = g.insertNode(relu, "Tanh", "tanh_tmp", {x}, {"t_tmp"});
  inferTypes(*tanh);
  g.replaceNode(relu, tanh->outputs[0], tanh);
  EXPECT_EQ(sig->inputs[0], tanh->outputs[0]);
  EXPECT_EQ(tanh->outputs[0]->name, outName);
  EXPECT_EQ(tanh->name, reluName);
  EXPECT_EQ(g.users(x).size(), 1u);  // relu is gone
  EXPECT_NO_THROW(verifyGraph(g));
}

TEST_F(GraphTest, RemoveNodeRequiresUnusedOutputs) {
  EXPECT_THROW(g.removeNode(relu), InternalError);
  EXPECT_THROW(g.removeNode(sig), InternalError);  // a graph output
  Node* dead = g.addNode("Exp", "exp", {x}, {"e"});
  g.removeNode(dead);
  EXPECT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(g.findValue("e"), nullptr);
}

TEST_F(GraphTest, RemoveDeadCodeDropsUnreachableNodesAndConstants) {
  Value* c = g.addConstant("c", testing::floatArray({1}, {2.0f}));
  Value* unused = g.addConstant("unused", testing::floatArray({1}, {3.0f}));
  Node* deadMul = g.addNode("Mul", "dead_mul", {x, c}, {"m"});
  Node* deadExp = g.addNode("Exp", "dead_exp", {deadMul->outputs[0]}, {"e2"});
  (void)deadExp;
  Node* liveAdd = g.addNode("Add", "add", {sig->outputs[0], c}, {"a"});
  inferTypes(*liveAdd);
  g.outputs()[0] = liveAdd->outputs[0];
  g.removeDeadCode();
  ASSERT_EQ(g.nodes().size(), 3u);
  EXPECT_EQ(g.nodes()[2], liveAdd);
  EXPECT_EQ(g.findValue("m"), nullptr);
  EXPECT_EQ(g.findValue("unused"), nullptr);
  EXPECT_FALSE(g.owns(unused));
  std::vector<Value*> consts = g.constants();
  ASSERT_EQ(consts.size(), 1u);
  EXPECT_EQ(consts[0], c);
  EXPECT_EQ(g.inputs().size(), 1u);  // graph inputs are never removed
}

TEST_F(GraphTest, UniqueNameAvoidsValuesAndNodes) {
  EXPECT_EQ(g.uniqueName("fresh"), "fresh");
  EXPECT_EQ(g.uniqueName("r"), "r_1");
  EXPECT_EQ(g.uniqueName("relu"), "relu_1");  // a node name
  g.addConstant("r_1", testing::floatArray({1}, {0.0f}));
  EXPECT_EQ(g.uniqueName("r"), "r_2");
}

TEST_F(GraphTest, AddNodeRejectsForeignValues) {
  Graph other;
  Value* foreign = other.addInput("f", f32({1}));
  EXPECT_THROW(g.addNode("Relu", "bad", {foreign}, {"o"}), InternalError);
}

TEST_F(GraphTest, ConstantTypeComesFromData) {
  Value* c = g.addConstant("k", testing::int64Array({2, 2}, {1, 2, 3, 4}));
  EXPECT_TRUE(c->isConstant());
  EXPECT_EQ(c->type, testing::i64({2, 2}));
  EXPECT_EQ(c->producer, nullptr);
}

TEST(TensorTypeTest, StrAndNumel) {
  TensorType t{DataType::float32(), {1, 3, 224, 224}};
  EXPECT_EQ(t.str(), "float32[1,3,224,224]");
  EXPECT_EQ(t.numel(), 3 * 224 * 224);
  EXPECT_EQ((TensorType{DataType::int64(), {}}).str(), "int64[]");
  EXPECT_EQ((TensorType{DataType::int64(), {}}).numel(), 1);
}

}  // namespace
}  // namespace kiln::ir
