// Shape inference of the data-movement ops Pad, Split, Tile, GatherElements, DepthToSpace and
// SpaceToDepth, and of Size (with its constant evaluation).
#include <random>

#include "ir_test_util.h"
#include "kiln/ir/constant_eval.h"

namespace kiln::ir {
namespace {

using testing::f32;
using testing::i64;
using testing::OneNode;

TEST(DataMovementInferTest, PadBothForms) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 4}));
  EXPECT_EQ(t.infer("Pad", {x, t.ints({0, 1, 2, 0, 3, -1})}), f32({2, 7, 5}));
  EXPECT_EQ(t.infer("Pad", {x}, testing::attrs({{"pads", std::vector<int64_t>{1, 0, 0, 1, 0, 0}}})),
            f32({4, 3, 4}));
  EXPECT_EQ(t.infer("Pad", {x, t.ints({1, 1}), t.in(f32({})), t.ints({-1})},
                    testing::attrs({{"mode", std::string("reflect")}})),
            f32({2, 3, 6}));
  EXPECT_EQ(findOp("Pad")->opClass, OpClass::kInjective);
}

TEST(DataMovementInferTest, PadErrors) {
  OneNode t;
  Value* x = t.in(f32({2, 3}));
  std::string e = t.error("Pad", {x, t.ints({1, 1})});
  EXPECT_NE(e.find("Pad '"), std::string::npos) << e;
  EXPECT_NE(e.find("pads [1,1] has 2 entries; expected 4"), std::string::npos) << e;
  e = t.error("Pad", {x, t.ints({0, -4, 0, 0})});
  EXPECT_NE(e.find("an invalid size"), std::string::npos) << e;
  e = t.error("Pad", {x, t.ints({0, 0, 0, 0})}, testing::attrs({{"mode", std::string("mirror")}}));
  EXPECT_NE(e.find("mode is 'mirror'"), std::string::npos) << e;
  e = t.error("Pad", {x, t.ints({0, 0, 0, 0})},
              testing::attrs({{"pads", std::vector<int64_t>{0, 0, 0, 0}}}));
  EXPECT_NE(e.find("both as an attribute"), std::string::npos) << e;
  e = t.error("Pad", {x});
  EXPECT_NE(e.find("pads are required"), std::string::npos) << e;
  // Pads known only at run time: the rank stays, the runtime sizes the dims.
  EXPECT_EQ(t.infer("Pad", {x, t.in(i64({4}))}), f32({runtime::kDynamicDim, runtime::kDynamicDim}));
  e = t.error("Pad", {x, t.ints({0, 0, 0, 0}), t.in(i64({}))});
  EXPECT_NE(e.find("input 2 has type int64 but input 0 has type float32"), std::string::npos) << e;
  e = t.error("Pad", {t.in(f32({0, 2})), t.ints({1, 0, 0, 0})},
              testing::attrs({{"mode", std::string("edge")}}));
  EXPECT_NE(e.find("cannot pad the empty dim 0"), std::string::npos) << e;
}

TEST(DataMovementInferTest, SplitForms) {
  OneNode t;
  Value* x = t.in(f32({6, 4}));
  Node* n = t.add("Split", {x}, {}, 3);
  inferTypes(*n);
  for (Value* out : n->outputs) EXPECT_EQ(out->type, f32({2, 4}));
  n = t.add("Split", {x, t.ints({1, 3})}, testing::attrs({{"axis", int64_t{-1}}}), 2);
  inferTypes(*n);
  EXPECT_EQ(n->outputs[0]->type, f32({6, 1}));
  EXPECT_EQ(n->outputs[1]->type, f32({6, 3}));
  n = t.add("Split", {x}, testing::attrs({{"split", std::vector<int64_t>{0, 6}}}), 2);
  inferTypes(*n);
  EXPECT_EQ(n->outputs[0]->type, f32({0, 4}));
  n = t.add("Split", {t.in(f32({7}))}, testing::attrs({{"num_outputs", int64_t{3}}}), 3);
  inferTypes(*n);
  EXPECT_EQ(n->outputs[0]->type, f32({3}));
  EXPECT_EQ(n->outputs[2]->type, f32({1}));
}

TEST(DataMovementInferTest, SplitErrors) {
  OneNode t;
  Value* x = t.in(f32({6, 4}));
  std::string e = t.error("Split", {x}, {}, 4);
  EXPECT_NE(e.find("the axis size 6 does not split into 4 equal parts"), std::string::npos) << e;
  e = t.error("Split", {x, t.ints({2, 2})}, {}, 2);
  EXPECT_NE(e.find("split [2,2] sums to 4; expected the axis size 6"), std::string::npos) << e;
  e = t.error("Split", {x, t.ints({6})}, {}, 2);
  EXPECT_NE(e.find("has 1 entries but the node has 2 outputs"), std::string::npos) << e;
  e = t.error("Split", {x}, testing::attrs({{"num_outputs", int64_t{3}}}), 2);
  EXPECT_NE(e.find("num_outputs is 3 but the node has 2 outputs"), std::string::npos) << e;
  e = t.error("Split", {t.in(f32({5}))}, testing::attrs({{"num_outputs", int64_t{4}}}), 4);
  EXPECT_NE(e.find("leaves an output empty"), std::string::npos) << e;
}

TEST(DataMovementInferTest, Tile) {
  std::mt19937 rng(5);
  OneNode t;
  for (int k = 0; k < 5; ++k) {
    Shape s(3), r(3), want(3);
    for (size_t d = 0; d < 3; ++d) {
      s[d] = std::uniform_int_distribution<int64_t>(1, 4)(rng);
      r[d] = std::uniform_int_distribution<int64_t>(0, 3)(rng);
      want[d] = s[d] * r[d];
    }
    EXPECT_EQ(t.infer("Tile", {t.in(f32(s)), t.ints(r)}), f32(want));
  }
  std::string e = t.error("Tile", {t.in(f32({2, 3})), t.ints({2})});
  EXPECT_NE(e.find("repeats [2] has 1 entries for input float32[2,3]; expected one per dim (2)"),
            std::string::npos)
      << e;
  e = t.error("Tile", {t.in(f32({2})), t.ints({-1})});
  EXPECT_NE(e.find("negative"), std::string::npos) << e;
  EXPECT_EQ(t.infer("Tile", {t.in(f32({2})), t.in(i64({1}))}), f32({runtime::kDynamicDim}));
}

TEST(DataMovementInferTest, GatherElements) {
  OneNode t;
  Value* data = t.in(f32({3, 4}));
  EXPECT_EQ(t.infer("GatherElements", {data, t.in(i64({5, 4}))}), f32({5, 4}));
  EXPECT_EQ(
      t.infer("GatherElements", {data, t.in(i64({2, 7}))}, testing::attrs({{"axis", int64_t{-1}}})),
      f32({2, 7}));
  std::string e = t.error("GatherElements", {data, t.in(i64({3}))});
  EXPECT_NE(e.find("differ in rank"), std::string::npos) << e;
  e = t.error("GatherElements", {data, t.in(i64({2, 5}))});
  EXPECT_NE(e.find("exceed data float32[3,4] on dim 1"), std::string::npos) << e;
  e = t.error("GatherElements", {data, t.constant(testing::int64Array({1, 2}, {0, 3}))});
  EXPECT_NE(e.find("index 3 is out of range for axis 0 of size 3"), std::string::npos) << e;
  e = t.error("GatherElements", {data, t.in(f32({1, 1}))});
  EXPECT_NE(e.find("expected int32 or int64"), std::string::npos) << e;
}

TEST(DataMovementInferTest, DepthToSpaceAndBack) {
  OneNode t;
  EXPECT_EQ(t.infer("DepthToSpace", {t.in(f32({1, 8, 2, 3}))},
                    testing::attrs({{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}})),
            f32({1, 2, 4, 6}));
  EXPECT_EQ(t.infer("SpaceToDepth", {t.in(f32({2, 3, 4, 6}))},
                    testing::attrs({{"blocksize", int64_t{2}}})),
            f32({2, 12, 2, 3}));
  std::string e = t.error("DepthToSpace", {t.in(f32({1, 6, 2, 2}))},
                          testing::attrs({{"blocksize", int64_t{2}}}));
  EXPECT_NE(e.find("has 6 channels; expected a multiple of blocksize^2 = 4"), std::string::npos)
      << e;
  e = t.error("DepthToSpace", {t.in(f32({1, 4, 2, 2}))},
              testing::attrs({{"blocksize", int64_t{2}}, {"mode", std::string("XYZ")}}));
  EXPECT_NE(e.find("mode is 'XYZ'"), std::string::npos) << e;
  e = t.error("SpaceToDepth", {t.in(f32({1, 1, 3, 4}))},
              testing::attrs({{"blocksize", int64_t{2}}}));
  EXPECT_NE(e.find("expected multiples of blocksize 2"), std::string::npos) << e;
  e = t.error("SpaceToDepth", {t.in(f32({1, 4, 4}))}, testing::attrs({{"blocksize", int64_t{2}}}));
  EXPECT_NE(e.find("expected a 4-D NCHW tensor"), std::string::npos) << e;
  e = t.error("SpaceToDepth", {t.in(f32({1, 4, 4, 4}))});
  EXPECT_NE(e.find("'blocksize' attribute is required"), std::string::npos) << e;
}

TEST(DataMovementInferTest, SizeIsAnInt64ScalarFoldedFromTheType) {
  OneNode t;
  Value* x = t.in(f32({2, 3, 7}));
  EXPECT_EQ(t.infer("Size", {x}), i64({}));
  Node* n = t.add("Size", {x});
  std::optional<std::vector<NDArray>> v = evaluateConstant(*n);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(testing::values<int64_t>((*v)[0]), std::vector<int64_t>{42});
  std::string e = t.error("Size", {x, x});
  EXPECT_NE(e.find("has 2 inputs; expected exactly 1"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::ir
