// Checks that loop IR constructors fold integer arithmetic (ramps included), broadcast scalars to
// vectors, enforce dtypes and print readably.
#include <gtest/gtest.h>

#include "kiln/support/error.h"
#include "kiln/tir/printer.h"

namespace kiln::tir {
namespace {

TEST(LoopIr, FoldsImmediateArithmetic) {
  EXPECT_TRUE(isIntImm(intImm(3) + intImm(4), 7));
  EXPECT_TRUE(isIntImm(intImm(3) - intImm(4), -1));
  EXPECT_TRUE(isIntImm(intImm(3) * intImm(4), 12));
  EXPECT_TRUE(isIntImm(intImm(-7) / intImm(2), -3));  // truncating
  EXPECT_TRUE(isIntImm(min(intImm(-7), intImm(2)), -7));
  EXPECT_TRUE(isIntImm(max(intImm(-7), intImm(2)), 2));
}

TEST(LoopIr, FloorDivisionRoundsTowardNegativeInfinity) {
  EXPECT_TRUE(isIntImm(binary(BinaryOp::kFloorDiv, intImm(-7), intImm(2)), -4));
  EXPECT_TRUE(isIntImm(binary(BinaryOp::kFloorMod, intImm(-7), intImm(2)), 1));
  EXPECT_TRUE(isIntImm(binary(BinaryOp::kFloorDiv, intImm(7), intImm(-2)), -4));
  EXPECT_TRUE(isIntImm(binary(BinaryOp::kFloorMod, intImm(7), intImm(-2)), -1));
  EXPECT_TRUE(isIntImm(binary(BinaryOp::kFloorDiv, intImm(6), intImm(3)), 2));
  EXPECT_TRUE(isIntImm(binary(BinaryOp::kMod, intImm(-7), intImm(2)), -1));
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
  EXPECT_TRUE(isIntImm(x * intImm(0), 0));
  EXPECT_TRUE(isIntImm(intImm(0) * x, 0));
  EXPECT_EQ(x - intImm(0), x);
  EXPECT_EQ(x / intImm(1), x);
  Expr y = x + intImm(2) + intImm(3);
  ASSERT_EQ(y->kind, ExprKind::kBinary);
  EXPECT_EQ(y->a, x);
  EXPECT_TRUE(isIntImm(y->b, 5));
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
  EXPECT_TRUE(isIntImm(e, -56));
  EXPECT_EQ(e->dtype, DataType::int8());
}

TEST(LoopIr, DtypeRules) {
  Expr i = var("i");
  Expr f = var("f", DataType::float32());
  EXPECT_THROW(i + f, InternalError);
  EXPECT_EQ(compare(CompareOp::kLT, i, intImm(3))->dtype, DataType::boolean());
  EXPECT_TRUE(isIntImm(compare(CompareOp::kLT, intImm(2), intImm(3)), 1));
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

TEST(LoopIr, PrintsReadableText) {
  Buffer x = makeBuffer("x", DataType::float32(), {8});
  Buffer y = makeBuffer("y", DataType::float32(), {8});
  Expr i = var("i");
  PrimFunc f{"k",
             {x, y},
             forLoop(i, intImm(0), intImm(8), ForKind::kVectorized,
                     store(y, i, max(load(x, i), floatImm(0.0))))};
  std::string text = printPrimFunc(f);
  EXPECT_NE(text.find("kernel k(float32* x[8], float32* y[8])"), std::string::npos) << text;
  EXPECT_NE(text.find("vectorized for (i, 0, 8) {"), std::string::npos) << text;
  EXPECT_NE(text.find("y[i] = max(x[i], 0.0f);"), std::string::npos) << text;
}

TEST(LoopIrVector, RampArithmeticStaysAffine) {
  Expr i = var("i");
  Expr r = ramp(i * intImm(16), intImm(1), 16);
  EXPECT_EQ(r->dtype, DataType::parse("int64x16"));
  // ramp + scalar: the scalar joins the base.
  Expr shifted = r + intImm(5);
  ASSERT_EQ(shifted->kind, ExprKind::kRamp);
  EXPECT_TRUE(isIntImm(shifted->b, 1));
  EXPECT_EQ(printExpr(shifted), "ramp(((i * 16) + 5), 1, 16)");
  // scalar * ramp scales base and stride.
  Expr scaled = intImm(3) * ramp(i, intImm(2), 4);
  ASSERT_EQ(scaled->kind, ExprKind::kRamp);
  EXPECT_TRUE(isIntImm(scaled->b, 6));
  // ramp + ramp adds both.
  Expr sum = ramp(intImm(1), intImm(1), 4) + ramp(intImm(10), intImm(2), 4);
  ASSERT_EQ(sum->kind, ExprKind::kRamp);
  EXPECT_TRUE(isIntImm(sum->a, 11));
  EXPECT_TRUE(isIntImm(sum->b, 3));
  // A ramp of stride 0 is a broadcast; one lane is the base itself.
  EXPECT_EQ(ramp(i, intImm(0), 8)->kind, ExprKind::kBroadcast);
  EXPECT_EQ(ramp(i, intImm(1), 1), i);
}

TEST(LoopIrVector, ScalarsMeetVectorsAsBroadcasts) {
  Buffer x = makeBuffer("x", DataType::float32(), {64});
  Expr v = load(x, ramp(intImm(0), intImm(1), 16));
  EXPECT_EQ(v->dtype, DataType::parse("float32x16"));
  Expr e = v * floatImm(2.0);
  ASSERT_EQ(e->kind, ExprKind::kBinary);
  EXPECT_EQ(e->b->kind, ExprKind::kBroadcast);
  EXPECT_EQ(e->dtype, v->dtype);
  // Operations on two broadcasts happen once, on the scalars.
  Expr b = broadcast(floatImm(1.0), 8) + broadcast(floatImm(2.0), 8);
  ASSERT_EQ(b->kind, ExprKind::kBroadcast);
  EXPECT_EQ(b->a->floatValue, 3.0);
  EXPECT_EQ(constant(0, DataType::parse("float32x4"))->kind, ExprKind::kBroadcast);
  // Different vector widths never mix.
  EXPECT_THROW(v + load(x, ramp(intImm(0), intImm(1), 8)), InternalError);
  // Comparisons of vectors give vectors of bool.
  EXPECT_EQ(compare(CompareOp::kLT, v, floatImm(0.0))->dtype, DataType::parse("boolx16"));
}

TEST(LoopIrVector, FmaAndReductions) {
  Buffer x = makeBuffer("x", DataType::float32(), {64});
  Expr v = load(x, ramp(intImm(16), intImm(1), 16));
  Expr f = fma(v, floatImm(2.0), v);
  EXPECT_EQ(f->dtype, v->dtype);
  EXPECT_EQ(f->args[1]->kind, ExprKind::kBroadcast);
  Expr s = call(Intrinsic::kReduceAdd, {v});
  EXPECT_EQ(s->dtype, DataType::float32());
  EXPECT_EQ(call(Intrinsic::kReduceMax, {floatImm(1.0)})->kind, ExprKind::kFloatImm);
  EXPECT_THROW(call(Intrinsic::kFma, {v, v}), InternalError);  // wrong arity
}

TEST(LoopIrVector, StoresMatchTheirIndexWidth) {
  Buffer y = makeBuffer("y", DataType::float32(), {64});
  Expr idx = ramp(intImm(0), intImm(1), 16);
  Stmt s = store(y, idx, floatImm(1.0));  // a scalar is broadcast
  EXPECT_EQ(s->value->dtype, DataType::parse("float32x16"));
  EXPECT_THROW(store(y, intImm(0), broadcast(floatImm(1.0), 4)), InternalError);
  EXPECT_THROW(makeBuffer("v", DataType::parse("float32x4"), {4}), InternalError);
}

}  // namespace
}  // namespace kiln::tir
