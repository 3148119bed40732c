// Sizes in the graph's symbols flow through type inference: an attention block over a growing
// sequence (its reshape targets computed from Shape, as exporters write them) gets exact
// symbolic types. The parser checks every declared type against inference, so each line is a
// check.
#include "ir_test_util.h"
#include "kiln/ir/constant_eval.h"
#include "kiln/ir/parser.h"
#include "kiln/ir/printer.h"

namespace kiln::ir {
namespace {

using opdef::Dim;

const char* kAttention =
    R"(graph main(%x: float32[1,seq,8], %pk: float32[1,2,past,4]) dims "past<=16, 1<=seq<=16" {
  %w = const float32[8,8] random(seed=1)
  %i1 = const int64[] [1]
  %ax = const int64[1] [0]
  %one = const int64[1] [1]
  %two = const int64[1] [2]
  %four = const int64[1] [4]
  %back = const int64[3] [1, -1, 8]
  %q = MatMul(%x, %w) : float32[1,seq,8]
  %s = Shape(%x) : int64[3]
  %n = Gather(%s, %i1) {axis=0} : int64[]
  %n1 = Unsqueeze(%n, %ax) : int64[1]
  %heads = Concat(%one, %n1, %two, %four) {axis=0} : int64[4]
  %qh = Reshape(%q, %heads) : float32[1,seq,2,4]
  %qt = Transpose(%qh) {perm=[0,2,1,3]} : float32[1,2,seq,4]
  %k = Concat(%pk, %qt) {axis=2} : float32[1,2,past+seq,4]
  %kt = Transpose(%k) {perm=[0,1,3,2]} : float32[1,2,4,past+seq]
  %sc = MatMul(%qt, %kt) : float32[1,2,seq,past+seq]
  %p = Softmax(%sc) {axis=-1} : float32[1,2,seq,past+seq]
  %o = MatMul(%p, %k) : float32[1,2,seq,4]
  %ot = Transpose(%o) {perm=[0,2,1,3]} : float32[1,seq,2,4]
  %y = Reshape(%ot, %back) : float32[1,seq,8]
  %r = Relu(%y) : float32[1,seq,8]
  return %r, %k
})";

TEST(SymbolicShapes, AnAttentionBlockOverAGrowingSequenceHasExactTypes) {
  std::unique_ptr<Graph> g = parseGraph(kAttention);
  EXPECT_EQ(g->dimBounds.at("seq"), (opdef::SizeRange{1, 16}));
  EXPECT_EQ(g->outputs()[1]->type.dim(2), Dim::symbol("past") + Dim::symbol("seq"));
  EXPECT_EQ(printGraph(*parseGraph(printGraph(*g))), printGraph(*g));
}

TEST(SymbolicShapes, ShapeComputationsCarryTheirSizes) {
  std::unique_ptr<Graph> g = parseGraph(kAttention);
  const Value* n = g->findValue("n");
  ASSERT_TRUE(n->symbolicValue.has_value());
  EXPECT_EQ(*n->symbolicValue, (opdef::DimList{Dim::symbol("seq")}));
  EXPECT_EQ(*g->findValue("heads")->symbolicValue, (opdef::DimList{1, Dim::symbol("seq"), 2, 4}));
}

// Exporters write Expand's shape as Where(Equal(shape, -1), 1, shape): a size is never -1.
TEST(SymbolicShapes, EqualAndWhereOverSizesAreFollowed) {
  std::unique_ptr<Graph> g = parseGraph(R"(graph main(%x: float32[n,4]) dims "n<=8" {
  %neg = const int64[] [-1]
  %ones = const int64[2] [1, 1]
  %s = Shape(%x) : int64[2]
  %eq = Equal(%s, %neg) : bool[2]
  %w = Where(%eq, %ones, %s) : int64[2]
  %y = Expand(%x, %w) : float32[n,4]
  return %y
})");
  EXPECT_EQ(*g->findValue("eq")->symbolicValue, (opdef::DimList{0, 0}));
  EXPECT_EQ(*g->findValue("w")->symbolicValue, (opdef::DimList{Dim::symbol("n"), 4}));
}

// Dim 2 of Shape([1,seq,8]) is 8 whatever seq is: it folds to a constant.
TEST(SymbolicShapes, AShapeValueWithoutSymbolsFoldsToAConstant) {
  std::unique_ptr<Graph> g = parseGraph(R"(graph main(%x: float32[1,seq,8]) dims "seq<=4" {
  %two = const int64[] [2]
  %s = Shape(%x) : int64[3]
  %d = Gather(%s, %two) {axis=0} : int64[]
  return %d
})");
  const Node* gather = g->findValue("d")->producer;
  std::optional<std::vector<NDArray>> folded = evaluateConstant(*gather);
  ASSERT_TRUE(folded.has_value());
  EXPECT_EQ((*folded)[0].data<int64_t>()[0], 8);
  EXPECT_FALSE(evaluateConstant(*g->findValue("s")->producer).has_value());
}

// A symbolic size that the other operand fixes: a broadcast against a constant takes the
// constant; two different symbols broadcast to a size known only at run time.
TEST(SymbolicShapes, BroadcastingKeepsWhatIsKnown) {
  std::unique_ptr<Graph> g = parseGraph(
      R"(graph main(%a: float32[n,1], %b: float32[n,m], %c: float32[4]) dims "m<=8, n<=8" {
  %ab = Add(%a, %b) : float32[n,m]
  %ac = Mul(%a, %c) : float32[n,4]
  %bt = Transpose(%b) : float32[m,n]
  %x = Sub(%b, %bt) : float32[?,?]
  return %ab, %ac, %x
})");
  EXPECT_EQ(g->outputs()[2]->type.str(), "float32[?,?]");
}

// Ops whose rules do not follow symbols give sizes known only at run time, never a stale symbol.
TEST(SymbolicShapes, OtherOpsForgetTheSymbols) {
  std::unique_ptr<Graph> g = parseGraph(R"(graph main(%x: float32[1,seq]) dims "seq<=4" {
  %reps = const int64[2] [2, 1]
  %y = Relu(%x) : float32[1,seq]
  %z = Tile(%y, %reps) : float32[2,?]
  return %z
})");
  EXPECT_FALSE(g->outputs()[0]->type.hasSymbolicDims());
}

}  // namespace
}  // namespace kiln::ir
