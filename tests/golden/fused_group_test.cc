// collectGroups and symbolSafe: the groups kernel lowering and the executor see, read off the
// `group` annotations.
#include "kiln/ir/fused_group.h"

#include <gtest/gtest.h>

#include <cctype>

#include "kiln/ir/parser.h"
#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::ir {
namespace {

std::vector<std::string> names(const std::vector<const Value*>& values) {
  std::vector<std::string> out;
  out.reserve(values.size());
  for (const Value* v : values) out.push_back(v->name);
  return out;
}

std::vector<std::string> ops(const FusedGroup& g) {
  std::vector<std::string> out;
  for (const Node* n : g.nodes) out.push_back(n->op);
  return out;
}

bool isCIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

TEST(SymbolSafe, MakesCIdentifiers) {
  EXPECT_EQ(symbolSafe("/layer1/conv.0"), "layer1_conv_0");
  EXPECT_EQ(symbolSafe("conv_1"), "conv_1");
  EXPECT_EQ(symbolSafe("a::b--c"), "a_b_c");
  EXPECT_EQ(symbolSafe("Relu\xc3\xa9x"), "Relu_x");
  for (const char* odd : {"0conv", "///", "", "9", "_"}) {
    EXPECT_TRUE(isCIdentifier(symbolSafe(odd))) << "'" << odd << "' -> " << symbolSafe(odd);
  }
  EXPECT_NE(symbolSafe("0conv").find("0conv"), std::string::npos);
}

TEST(CollectGroups, ResnetBlockGroupsWithInputsAndOutputs) {
  auto g = parseGraph(R"(
    graph main(%x: float32[1,2,4,4]) {
      %w1 = const float32[2,2,1,1] [1.0, 0.0, 0.0, 1.0]
      %b1 = const float32[2] [0.25, -0.25]
      %w2 = const float32[2,2,1,1] [1.0, -1.0, 2.0, 1.0]
      %c1 = Conv["/block/conv1"](%x, %w1, %b1) {kernel_shape=[1,1]}
      %r1 = Relu(%c1)
      %c2 = Conv["/block/conv2"](%r1, %w2) {kernel_shape=[1,1]}
      %sum = Add(%c2, %x)
      %y = Relu(%sum)
      return %y
    })");
  transform::fuseOps(*g);
  std::vector<FusedGroup> groups = collectGroups(*g);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].name, "block_conv1");
  EXPECT_EQ(ops(groups[0]), (std::vector<std::string>{"Conv", "Relu"}));
  EXPECT_EQ(names(groups[0].inputs), (std::vector<std::string>{"x", "w1", "b1"}));
  EXPECT_EQ(names(groups[0].outputs), (std::vector<std::string>{"r1"}));
  EXPECT_EQ(groups[1].name, "block_conv2");
  EXPECT_EQ(ops(groups[1]), (std::vector<std::string>{"Conv", "Add", "Relu"}));
  EXPECT_EQ(names(groups[1].inputs), (std::vector<std::string>{"r1", "w2", "x"}));
  EXPECT_EQ(names(groups[1].outputs), (std::vector<std::string>{"y"}));
}

TEST(CollectGroups, UnfusedNodesAreGroupsOfTheirOwnWithUniqueNames) {
  auto g = parseGraph(R"(
    graph main(%x: float32[4]) {
      %a = Relu["act.1"](%x)
      %b = Neg["act/1"](%a)
      %c = Abs["act_1"](%b)
      return %c, %a
    })");
  std::vector<FusedGroup> groups = collectGroups(*g);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].name, "act_1");
  EXPECT_EQ(groups[1].name, "act_1_1");
  EXPECT_EQ(groups[2].name, "act_1_2");
  EXPECT_EQ(names(groups[0].outputs), (std::vector<std::string>{"a"}));  // used and returned
}

// Groups are ordered by dependencies, not by the ids fuse-ops happened to give them.
TEST(CollectGroups, OrdersGroupsByDependency) {
  auto g = parseGraph(R"(
    graph main(%x: float32[4]) {
      %a = Relu(%x)
      %b = Neg(%x)
      %c = Add(%a, %b)
      return %c
    })");
  auto nodes = g->nodes();
  nodes[0]->group = 7;  // a
  nodes[1]->group = 3;  // b
  nodes[2]->group = 5;  // c
  std::vector<FusedGroup> groups = collectGroups(*g);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[2].nodes[0]->op, "Add");
}

TEST(CollectGroups, CycleBetweenGroupsIsAnInternalError) {
  auto g = parseGraph(R"(
    graph main(%x: float32[4]) {
      %a = Relu(%x)
      %b = Neg(%a)
      %c = Abs(%b)
      return %c
    })");
  auto nodes = g->nodes();
  nodes[0]->group = 0;
  nodes[1]->group = 1;
  nodes[2]->group = 0;  // a and c together, b between them in another group
  EXPECT_THROW(collectGroups(*g), InternalError);
}

}  // namespace
}  // namespace kiln::ir
