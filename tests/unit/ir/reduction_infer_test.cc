// Shape and dtype inference of the reductions beyond Sum/Mean/Max (the other Reduce* ops,
// ArgMax/ArgMin, GlobalLpPool), Hardmax and the normalisations (Instance-, LayerNormalization,
// LRN).
#include <random>

#include "ir_test_util.h"

namespace kiln::ir {
namespace {

using testing::f32;
using testing::i64;
using testing::OneNode;

const char* const kNewReduceOps[] = {"ReduceMin",      "ReduceProd",   "ReduceL1",
                                     "ReduceL2",       "ReduceLogSum", "ReduceLogSumExp",
                                     "ReduceSumSquare"};

TEST(ReductionInferTest, ReduceOpsBothAxesForms) {
  std::mt19937 rng(3);
  for (const char* op : kNewReduceOps) {
    OneNode t;
    Shape s(4);
    for (int64_t& d : s) d = std::uniform_int_distribution<int64_t>(1, 6)(rng);
    Value* x = t.in(f32(s));
    EXPECT_EQ(t.infer(op, {x}), f32({1, 1, 1, 1})) << op;
    EXPECT_EQ(t.infer(op, {x}, testing::attrs({{"keepdims", int64_t{0}}})), f32({})) << op;
    EXPECT_EQ(t.infer(op, {x}, testing::attrs({{"axes", std::vector<int64_t>{1, -1}}})),
              f32({s[0], 1, s[2], 1}))
        << op;
    EXPECT_EQ(t.infer(op, {x, t.ints({-4, 2})}, testing::attrs({{"keepdims", int64_t{0}}})),
              f32({s[1], s[3]}))
        << op;
    EXPECT_EQ(t.infer(op, {x, t.constant(testing::int64Array({0}, {}))},
                      testing::attrs({{"noop_with_empty_axes", int64_t{1}}})),
              f32(s))
        << op;
    EXPECT_EQ(findOp(op)->opClass, OpClass::kReduction) << op;
    std::string e =
        t.error(op, {x, t.ints({0})}, testing::attrs({{"axes", std::vector<int64_t>{0}}}));
    EXPECT_NE(e.find("both as an attribute"), std::string::npos) << op << e;
    e = t.error(op, {x, t.ints({1, -3})});
    EXPECT_NE(e.find("name axis 1 twice"), std::string::npos) << op << e;
  }
}

TEST(ReductionInferTest, ArgMaxArgMin) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    OneNode t;
    Value* x = t.in(f32({2, 3, 4}));
    EXPECT_EQ(t.infer(op, {x}), i64({1, 3, 4})) << op;
    EXPECT_EQ(t.infer(op, {x}, testing::attrs({{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}})),
              i64({2, 3}))
        << op;
    EXPECT_EQ(t.infer(op, {t.in(i64({5}))}, testing::attrs({{"select_last_index", int64_t{1}}})),
              i64({1}))
        << op;
    std::string e = t.error(op, {x}, testing::attrs({{"axis", int64_t{3}}}));
    EXPECT_NE(e.find(std::string(op) + " '"), std::string::npos) << e;
    EXPECT_NE(e.find("axis 3 is out of range for rank 3; expected -3..2"), std::string::npos) << e;
    e = t.error(op, {t.in(f32({2, 0}))}, testing::attrs({{"axis", int64_t{1}}}));
    EXPECT_NE(e.find("is empty"), std::string::npos) << e;
    e = t.error(op, {t.in(f32({}))});
    EXPECT_NE(e.find("expected rank >= 1"), std::string::npos) << e;
  }
}

TEST(ReductionInferTest, HardmaxLikeSoftmax) {
  OneNode t;
  EXPECT_EQ(t.infer("Hardmax", {t.in(f32({2, 3, 4}))}, testing::attrs({{"axis", int64_t{1}}})),
            f32({2, 3, 4}));
  EXPECT_EQ(findOp("Hardmax")->opClass, OpClass::kReduction);
  std::string e = t.error("Hardmax", {t.in(f32({2, 3}))}, testing::attrs({{"axis", int64_t{2}}}));
  EXPECT_NE(e.find("axis 2 is out of range for rank 2"), std::string::npos) << e;
  e = t.error("Hardmax", {t.in(i64({2, 3}))});
  EXPECT_NE(e.find("expected float16, float32"), std::string::npos) << e;
}

TEST(ReductionInferTest, GlobalLpPool) {
  OneNode t;
  EXPECT_EQ(t.infer("GlobalLpPool", {t.in(f32({2, 3, 5, 7}))}), f32({2, 3, 1, 1}));
  EXPECT_EQ(t.infer("GlobalLpPool", {t.in(f32({1, 4, 9}))}, testing::attrs({{"p", int64_t{1}}})),
            f32({1, 4, 1}));
  std::string e = t.error("GlobalLpPool", {t.in(f32({2, 3}))});
  EXPECT_NE(e.find("expected rank >= 3"), std::string::npos) << e;
  e = t.error("GlobalLpPool", {t.in(f32({2, 3, 4}))}, testing::attrs({{"p", int64_t{0}}}));
  EXPECT_NE(e.find("p is 0; expected p >= 1"), std::string::npos) << e;
}

TEST(NormalizationInferTest, InstanceNormalization) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 4, 5}));
  EXPECT_EQ(t.infer("InstanceNormalization", {x, t.in(f32({3})), t.in(f32({3}))}),
            f32({2, 3, 4, 5}));
  EXPECT_EQ(findOp("InstanceNormalization")->opClass, OpClass::kReduction);
  std::string e = t.error("InstanceNormalization", {x, t.in(f32({4})), t.in(f32({3}))});
  EXPECT_NE(e.find("scale (input 1) is float32[4]; expected [3]"), std::string::npos) << e;
  e = t.error("InstanceNormalization", {t.in(f32({2, 3})), t.in(f32({3})), t.in(f32({3}))});
  EXPECT_NE(e.find("expected rank >= 3"), std::string::npos) << e;
}

TEST(NormalizationInferTest, LayerNormalizationOutputsAndScaleShapes) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 4}));
  EXPECT_EQ(t.infer("LayerNormalization", {x, t.in(f32({4})), t.in(f32({4}))}), f32({2, 3, 4}));
  EXPECT_EQ(
      t.infer("LayerNormalization", {x, t.in(f32({3, 4}))}, testing::attrs({{"axis", int64_t{1}}})),
      f32({2, 3, 4}));
  Node* n = t.add("LayerNormalization", {x, t.in(f32({3, 1}))},
                  testing::attrs({{"axis", int64_t{-2}}}), 3);
  inferTypes(*n);
  EXPECT_EQ(n->outputs[1]->type, f32({2, 1, 1}));
  EXPECT_EQ(n->outputs[2]->type, f32({2, 1, 1}));
  std::string e = t.error("LayerNormalization", {x, t.in(f32({3}))});
  EXPECT_NE(e.find("Scale (input 1) is float32[3]; expected a shape broadcasting to [4]"),
            std::string::npos)
      << e;
  e = t.error("LayerNormalization", {x});
  EXPECT_NE(e.find("has 1 inputs; expected 2 to 3"), std::string::npos) << e;
  e = t.error("LayerNormalization", {x, t.in(f32({4}))},
              testing::attrs({{"stash_type", int64_t{11}}}));
  EXPECT_NE(e.find("stash_type is 11"), std::string::npos) << e;
}

TEST(NormalizationInferTest, Lrn) {
  OneNode t;
  Value* x = t.in(f32({1, 5, 3, 3}));
  EXPECT_EQ(t.infer("LRN", {x}, testing::attrs({{"size", int64_t{3}}, {"alpha", 1e-3}})),
            f32({1, 5, 3, 3}));
  // LRN reads neighbouring channels, so it must not be fused as an elementwise epilogue.
  EXPECT_NE(findOp("LRN")->opClass, OpClass::kElementwise);
  EXPECT_NE(findOp("LRN")->opClass, OpClass::kBroadcast);
  std::string e = t.error("LRN", {x});
  EXPECT_NE(e.find("the 'size' attribute is required"), std::string::npos) << e;
  e = t.error("LRN", {x}, testing::attrs({{"size", int64_t{0}}}));
  EXPECT_NE(e.find("size is 0"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::ir
