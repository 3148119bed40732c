// Shape and dtype inference of the pointwise ops beyond the basic arithmetic: activations with
// attributes, rounding and sign, predicates, CastLike, comparisons, logical ops, Mod, PRelu and the
// variadic Min/Max/Sum/Mean.
#include <random>

#include "ir_test_util.h"

namespace kiln::ir {
namespace {

using testing::f32;
using testing::i64;
using testing::OneNode;

TensorType boolean(Shape s) { return {DataType::boolean(), std::move(s)}; }

// A random shape of rank 0..4 with dims 1..5, from a fixed seed.
Shape randomShape(std::mt19937& rng) {
  Shape s(std::uniform_int_distribution<int>(0, 4)(rng));
  for (int64_t& d : s) d = std::uniform_int_distribution<int64_t>(1, 5)(rng);
  return s;
}

TEST(PointwiseInferTest, FloatOnlyOpsKeepTheTypeAndRejectIntegers) {
  std::mt19937 rng(7);
  for (const char* op :
       {"Elu", "Selu", "Celu", "HardSigmoid", "HardSwish", "ThresholdedRelu", "Softplus",
        "Softsign", "Mish", "Gelu", "Floor", "Ceil", "Round", "Reciprocal"}) {
    OneNode t;
    Shape s = randomShape(rng);
    EXPECT_EQ(t.infer(op, {t.in(f32(s))}), f32(s)) << op;
    TensorType f64{DataType::float64(), s};
    EXPECT_EQ(t.infer(op, {t.in(f64)}), f64) << op;
    std::string e = t.error(op, {t.in(i64(s))});
    EXPECT_NE(e.find(std::string(op) + " '"), std::string::npos) << e;
    EXPECT_NE(e.find("input 0 has type int64; expected float16, float32"), std::string::npos) << e;
  }
}

TEST(PointwiseInferTest, ActivationAttributes) {
  OneNode t;
  Value* x = t.in(f32({2, 3}));
  EXPECT_EQ(t.infer("Elu", {x}, testing::attrs({{"alpha", 0.5}})), f32({2, 3}));
  EXPECT_EQ(t.infer("Gelu", {x}, testing::attrs({{"approximate", std::string("tanh")}})),
            f32({2, 3}));
  std::string e = t.error("Gelu", {x}, testing::attrs({{"approximate", std::string("fast")}}));
  EXPECT_NE(e.find("approximate is 'fast'; expected 'none' or 'tanh'"), std::string::npos) << e;
  e = t.error("Selu", {x}, testing::attrs({{"gamma", std::string("big")}}));
  EXPECT_NE(e.find("Selu '"), std::string::npos) << e;
  EXPECT_NE(e.find("gamma"), std::string::npos) << e;
}

TEST(PointwiseInferTest, SignNotAndPredicates) {
  OneNode t;
  EXPECT_EQ(t.infer("Sign", {t.in(i64({4}))}), i64({4}));
  EXPECT_EQ(t.infer("Sign", {t.in(f32({2, 2}))}), f32({2, 2}));
  std::string e = t.error("Sign", {t.in(boolean({4}))});
  EXPECT_NE(e.find("input 0 has type bool; expected a numeric"), std::string::npos) << e;

  EXPECT_EQ(t.infer("Not", {t.in(boolean({3, 1}))}), boolean({3, 1}));
  e = t.error("Not", {t.in(f32({3}))});
  EXPECT_NE(e.find("input 0 has type float32; expected bool"), std::string::npos) << e;

  EXPECT_EQ(t.infer("IsNaN", {t.in(f32({2, 5}))}), boolean({2, 5}));
  EXPECT_EQ(
      t.infer("IsInf", {t.in(f32({2, 5}))}, testing::attrs({{"detect_negative", int64_t{0}}})),
      boolean({2, 5}));
  for (const char* op : {"IsNaN", "IsInf"}) {
    e = t.error(op, {t.in(i64({2}))});
    EXPECT_NE(e.find("input 0 has type int64; expected float"), std::string::npos) << op << e;
  }
}

TEST(PointwiseInferTest, CastLikeTakesTheDtypeOfInputOne) {
  OneNode t;
  EXPECT_EQ(t.infer("CastLike", {t.in(f32({2, 3})), t.in(i64({7}))}), i64({2, 3}));
  EXPECT_EQ(t.infer("CastLike", {t.in(i64({4})), t.in(f32({}))}), f32({4}));
  std::string e = t.error("CastLike", {t.in(f32({2}))});
  EXPECT_NE(e.find("has 1 inputs; expected exactly 2"), std::string::npos) << e;
}

TEST(PointwiseInferTest, ComparisonsBroadcastToBool) {
  std::mt19937 rng(11);
  for (const char* op : {"Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    OneNode t;
    EXPECT_EQ(t.infer(op, {t.in(f32({2, 1, 4})), t.in(f32({3, 1}))}), boolean({2, 3, 4})) << op;
    Shape s = randomShape(rng);
    EXPECT_EQ(t.infer(op, {t.in(i64(s)), t.in(i64({}))}), boolean(s)) << op;
    std::string e = t.error(op, {t.in(f32({2})), t.in(i64({2}))});
    EXPECT_NE(e.find("input 1 has type int64 but input 0 has type float32"), std::string::npos)
        << op << e;
    e = t.error(op, {t.in(f32({2, 3})), t.in(f32({4}))});
    EXPECT_NE(e.find("cannot be broadcast"), std::string::npos) << op << e;
  }
}

TEST(PointwiseInferTest, LogicalOpsNeedBool) {
  for (const char* op : {"And", "Or", "Xor"}) {
    OneNode t;
    EXPECT_EQ(t.infer(op, {t.in(boolean({3, 1})), t.in(boolean({1, 4}))}), boolean({3, 4})) << op;
    std::string e = t.error(op, {t.in(boolean({2})), t.in(i64({2}))});
    EXPECT_NE(e.find("input 1 has type int64; expected bool"), std::string::npos) << op << e;
  }
}

TEST(PointwiseInferTest, ModNeedsFmodForFloats) {
  OneNode t;
  EXPECT_EQ(t.infer("Mod", {t.in(i64({2, 3})), t.in(i64({3}))}), i64({2, 3}));
  EXPECT_EQ(
      t.infer("Mod", {t.in(f32({2})), t.in(f32({2}))}, testing::attrs({{"fmod", int64_t{1}}})),
      f32({2}));
  std::string e = t.error("Mod", {t.in(f32({2})), t.in(f32({2}))});
  EXPECT_NE(e.find("float32 with fmod=0; expected fmod=1"), std::string::npos) << e;
}

TEST(PointwiseInferTest, PReluSlopeBroadcastsToX) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 4, 5}));
  EXPECT_EQ(t.infer("PRelu", {x, t.in(f32({3, 1, 1}))}), f32({2, 3, 4, 5}));
  EXPECT_EQ(t.infer("PRelu", {x, t.in(f32({5}))}), f32({2, 3, 4, 5}));
  EXPECT_EQ(t.infer("PRelu", {x, t.in(f32({1}))}), f32({2, 3, 4, 5}));
  std::string e = t.error("PRelu", {x, t.in(f32({3}))});
  EXPECT_NE(e.find("slope float32[3] does not broadcast to X float32[2,3,4,5]"), std::string::npos)
      << e;
  e = t.error("PRelu", {t.in(f32({3})), t.in(f32({2, 3}))});  // would grow X
  EXPECT_NE(e.find("does not broadcast to X"), std::string::npos) << e;
}

TEST(PointwiseInferTest, VariadicOpsBroadcastAllInputs) {
  for (const char* op : {"Min", "Max", "Sum", "Mean"}) {
    OneNode t;
    EXPECT_EQ(t.infer(op, {t.in(f32({3, 1}))}), f32({3, 1})) << op;
    EXPECT_EQ(t.infer(op, {t.in(f32({3, 1})), t.in(f32({4})), t.in(f32({2, 1, 1}))}),
              f32({2, 3, 4}))
        << op;
    std::string e = t.error(op, {t.in(f32({3})), t.in(f32({3})), t.in(f32({2}))});
    EXPECT_NE(e.find("cannot be broadcast"), std::string::npos) << op << e;
    e = t.error(op, {t.in(f32({3})), t.in(i64({3}))});
    EXPECT_NE(e.find("input 1 has type int64 but input 0 has type float32"), std::string::npos)
        << op << e;
    e = t.error(op, {});
    EXPECT_NE(e.find("has 0 inputs; expected at least 1"), std::string::npos) << op << e;
  }
  OneNode t;
  EXPECT_EQ(t.infer("Max", {t.in(i64({2})), t.in(i64({2}))}), i64({2}));
  std::string e = t.error("Mean", {t.in(i64({2})), t.in(i64({2}))});
  EXPECT_NE(e.find("input 0 has type int64; expected float"), std::string::npos) << e;
}

TEST(PointwiseInferTest, OpClassesLetThemFuse) {
  for (const char* op : {"Elu", "Selu", "Celu", "HardSigmoid", "HardSwish", "ThresholdedRelu",
                         "Softplus", "Softsign", "Mish", "Gelu", "Floor", "Ceil", "Round",
                         "Reciprocal", "Sign", "Not", "IsNaN", "IsInf", "CastLike"}) {
    ASSERT_NE(findOp(op), nullptr) << op;
    EXPECT_EQ(findOp(op)->opClass, OpClass::kElementwise) << op;
  }
  for (const char* op : {"Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor",
                         "Mod", "PRelu", "Min", "Max", "Sum", "Mean"}) {
    ASSERT_NE(findOp(op), nullptr) << op;
    EXPECT_EQ(findOp(op)->opClass, OpClass::kBroadcast) << op;
  }
}

}  // namespace
}  // namespace kiln::ir
