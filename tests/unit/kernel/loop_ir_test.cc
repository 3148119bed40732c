// Checks that loop IR constructors fold integer arithmetic, enforce dtypes and print readably.
#include "kiln/kernel/loop_ir.h"

#include <gtest/gtest.h>

#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

bool isImm(const Expr& e, int64_t v) { return e->kind == ExprKind::kIntImm && e->intValue == v; }

TEST(LoopIr, FoldsImmediateArithmetic) {
  EXPECT_TRUE(isImm(intImm(3) + intImm(4), 7));
  EXPECT_TRUE(isImm(intImm(3) - intImm(4), -1));
  EXPECT_TRUE(isImm(intImm(3) * intImm(4), 12));
  EXPECT_TRUE(isImm(intImm(-7) / intImm(2), -3));  // truncating
  EXPECT_TRUE(isImm(min(intImm(-7), intImm(2)), -7));
  EXPECT_TRUE(isImm(max(intImm(-7), intImm(2)), 2));
}

TEST(LoopIr, FloorDivisionRoundsTowardNegativeInfinity) {
  EXPECT_TRUE(isImm(binary(BinaryOp::kFloorDiv, intImm(-7), intImm(2)), -4));
  EXPECT_TRUE(isImm(binary(BinaryOp::kFloorMod, intImm(-7), intImm(2)), 1));
  EXPECT_TRUE(isImm(binary(BinaryOp::kFloorDiv, intImm(7), intImm(-2)), -4));
  EXPECT_TRUE(isImm(binary(BinaryOp::kFloorMod, intImm(7), intImm(-2)), -1));
  EXPECT_TRUE(isImm(binary(BinaryOp::kFloorDiv, intImm(6), intImm(3)), 2));
  EXPECT_TRUE(isImm(binary(BinaryOp::kMod, intImm(-7), intImm(2)), -1));
}

TEST(LoopIr, DivisionByZeroImmediateIsNotFolded) {
  Expr e = binary(BinaryOp::kDiv, intImm(1), intImm(0));
  EXPECT_EQ(e->kind, ExprKind::kBinary);
}

TEST(LoopIr, FoldsIdentities) {
  Expr x = var("x");
  EXPECT_EQ(x + intImm(0), x);
  EXPECT_EQ(intImm(0) + x, x);
  EXPECT_EQ(x * intImm(1), x);
  EXPECT_EQ(intImm(1) * x, x);
  EXPECT_TRUE(isImm(x * intImm(0), 0));
  EXPECT_TRUE(isImm(intImm(0) * x, 0));
  EXPECT_EQ(x - intImm(0), x);
  EXPECT_EQ(x / intImm(1), x);
  Expr y = x + intImm(2) + intImm(3);
  ASSERT_EQ(y->kind, ExprKind::kBinary);
  EXPECT_EQ(y->a, x);
  EXPECT_TRUE(isImm(y->b, 5));
  EXPECT_EQ(x + intImm(2) - intImm(2), x);
}

TEST(LoopIr, FloatsAreNotSimplifiedAlgebraically) {
  Expr f = var("f", DataType::float32());
  Expr e = f * floatImm(0.0);
  EXPECT_EQ(e->kind, ExprKind::kBinary);  // NaN * 0 is NaN
  EXPECT_EQ((floatImm(1.5) + floatImm(2.0))->floatValue, 3.5);
}

TEST(LoopIr, NarrowIntegersWrap) {
  Expr e = intImm(100, DataType::int8()) + intImm(100, DataType::int8());
  EXPECT_TRUE(isImm(e, -56));
  EXPECT_EQ(e->dtype, DataType::int8());
}

TEST(LoopIr, DtypeRules) {
  Expr i = var("i");
  Expr f = var("f", DataType::float32());
  EXPECT_THROW(i + f, InternalError);
  EXPECT_EQ(compare(CompareOp::kLT, i, intImm(3))->dtype, DataType::boolean());
  EXPECT_TRUE(isImm(compare(CompareOp::kLT, intImm(2), intImm(3)), 1));
  EXPECT_EQ(compare(CompareOp::kLT, intImm(2), intImm(3))->dtype, DataType::boolean());
  EXPECT_THROW(select(i, f, f), InternalError);
  EXPECT_EQ(select(compare(CompareOp::kEQ, intImm(1), intImm(1)), i, intImm(0)), i);
  EXPECT_EQ(cast(DataType::float32(), intImm(3))->kind, ExprKind::kFloatImm);
  EXPECT_EQ(cast(DataType::int64(), i), i);
  Buffer b = makeBuffer("b", DataType::float32(), {2, 3});
  EXPECT_EQ(b->numel(), 6);
  EXPECT_EQ(load(b, i)->dtype, DataType::float32());
  EXPECT_THROW(store(b, i, i), InternalError);
  EXPECT_THROW(call(Intrinsic::kExp, {i}), InternalError);
  EXPECT_THROW(call(Intrinsic::kPow, {f}), InternalError);
}

TEST(LoopIr, SeqFlattensAndDropsNulls) {
  Buffer b = makeBuffer("b", DataType::int64(), {4});
  Stmt s1 = store(b, intImm(0), intImm(1));
  Stmt s2 = store(b, intImm(1), intImm(2));
  Stmt s = seq({seq({s1, nullptr}), s2});
  ASSERT_EQ(s->kind, StmtKind::kSeq);
  EXPECT_EQ(s->seq.size(), 2u);
  EXPECT_EQ(seq({s1}), s1);
}

TEST(LoopIr, PrintsReadableC) {
  Buffer x = makeBuffer("x", DataType::float32(), {8});
  Buffer y = makeBuffer("y", DataType::float32(), {8});
  Expr i = var("i");
  PrimFunc f{"k",
             {x, y},
             forLoop(i, intImm(0), intImm(8), ForKind::kVectorized,
                     store(y, i, max(load(x, i), floatImm(0.0))))};
  std::string text = printPrimFunc(f);
  EXPECT_NE(text.find("kernel k(float32* x[8], float32* y[8])"), std::string::npos) << text;
  EXPECT_NE(text.find("vectorized for (int64 i = 0; i < 8; ++i)"), std::string::npos) << text;
  EXPECT_NE(text.find("y[i] = max(x[i], 0.0f);"), std::string::npos) << text;
}

}  // namespace
}  // namespace kiln::kernel
