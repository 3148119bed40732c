// Fused groups read off node annotations: membership, schedule order, boundary values, names.
#include "kiln/ir/fused_group.h"

#include "ir_test_util.h"
#include "kiln/ir/parser.h"

namespace kiln::ir {
namespace {

TEST(FusedGroupTest, GroupsInputsOutputsAndOrder) {
  std::unique_ptr<Graph> g = parseGraph(R"(graph g(%x: float32[1,2,4,4], %w: float32[2,2,1,1]) {
  %b = const float32[2] [0.5, 1.0]
  %conv = Conv["/layer1/conv.0"](%x, %w, %b) #group=0
  %relu = Relu(%conv) #group=0
  %side = Sigmoid(%x)
  %sum = Add(%relu, %side) #group=1
  %exp = Exp(%sum) #group=1
  return %exp, %relu
})");
  std::vector<FusedGroup> groups = collectGroups(*g);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].name, "layer1_conv_0");
  ASSERT_EQ(groups[0].nodes.size(), 2u);
  EXPECT_EQ(groups[0].inputs.size(), 3u);  // x, w, b in first-use order
  EXPECT_EQ(groups[0].inputs[0]->name, "x");
  EXPECT_EQ(groups[0].inputs[2]->name, "b");
  ASSERT_EQ(groups[0].outputs.size(), 1u);  // relu: used by group 1 and a graph output
  EXPECT_EQ(groups[0].outputs[0]->name, "relu");
  EXPECT_EQ(groups[1].name, "side");  // a node of its own
  EXPECT_EQ(groups[2].nodes.size(), 2u);
  ASSERT_EQ(groups[2].inputs.size(), 2u);
  EXPECT_EQ(groups[2].inputs[0]->name, "relu");
  EXPECT_EQ(groups[2].inputs[1]->name, "side");
  ASSERT_EQ(groups[2].outputs.size(), 1u);
  EXPECT_EQ(groups[2].outputs[0]->name, "exp");
}

TEST(FusedGroupTest, ScheduleRespectsDependenciesAcrossInterleavedNodes) {
  // Group 5's first node comes first, but it needs the ungrouped node listed after it.
  std::unique_ptr<Graph> g = parseGraph(R"(graph g(%x: float32[4]) {
  %a = Relu(%x) #group=5
  %c = Exp(%x)
  %d = Add(%a, %c) #group=5
  return %d
})");
  std::vector<FusedGroup> groups = collectGroups(*g);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].nodes[0]->name, "c");
  EXPECT_EQ(groups[1].nodes.size(), 2u);
}

TEST(FusedGroupTest, CycleBetweenGroupsIsAnInternalError) {
  std::unique_ptr<Graph> g = parseGraph(R"(graph g(%x: float32[4]) {
  %a = Relu(%x) #group=1
  %b = Exp(%a) #group=2
  %c = Add(%a, %b) #group=1
  return %c
})");
  EXPECT_THROW(collectGroups(*g), InternalError);
}

TEST(FusedGroupTest, SymbolSafeAndUniqueNames) {
  EXPECT_EQ(symbolSafe("/layer1/conv.0"), "layer1_conv_0");
  EXPECT_EQ(symbolSafe("onnx::Add_12"), "onnx_Add_12");
  EXPECT_EQ(symbolSafe("123"), "_123");
  EXPECT_EQ(symbolSafe("//"), "node");
  std::unique_ptr<Graph> g = parseGraph(R"(graph g(%x: float32[4]) {
  %"a.b" = Relu(%x)
  %a_b = Exp(%"a.b")
  return %a_b
})");
  std::vector<FusedGroup> groups = collectGroups(*g);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].name, "a_b");
  EXPECT_EQ(groups[1].name, "a_b_1");
}

}  // namespace
}  // namespace kiln::ir
