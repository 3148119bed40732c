// Constant evaluation of every supported op, checked against hand-computed results.
#include "kiln/ir/constant_eval.h"

#include <cmath>
#include <limits>

#include "ir_test_util.h"

namespace kiln::ir {
namespace {

using testing::f32;
using testing::floatArray;
using testing::int32Array;
using testing::int64Array;
using testing::OneNode;
using testing::values;

class ConstantEvalTest : public ::testing::Test {
 protected:
  // Evaluates a new OP node over INPUTS; the node's types are deliberately not inferred first.
  NDArray eval(const std::string& op, std::vector<Value*> inputs, Attrs attrs = {}) {
    Node* n = t.add(op, std::move(inputs), std::move(attrs));
    std::optional<std::vector<NDArray>> r = evaluateConstant(*n);
    EXPECT_TRUE(r.has_value()) << op;
    if (!r) return NDArray::empty({0}, DataType::float32());
    EXPECT_EQ(r->size(), 1u);
    return (*r)[0];
  }
  Value* c(NDArray a) { return t.constant(std::move(a)); }
  Value* ints(const std::vector<int64_t>& v) { return t.ints(v); }
  OneNode t;
};

TEST_F(ConstantEvalTest, ConstantAttrForms) {
  NDArray v = int64Array({2}, {5, 6});
  NDArray r = eval("Constant", {}, testing::attrs({{"value", v}}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{5, 6}));
  EXPECT_FALSE(r.sameAs(v));  // a copy: folding must not alias attribute storage
  r = eval("Constant", {}, testing::attrs({{"value_floats", std::vector<double>{0.5, -2}}}));
  EXPECT_EQ(values<float>(r), (std::vector<float>{0.5f, -2.0f}));
  r = eval("Constant", {}, testing::attrs({{"value_int", int64_t{-3}}}));
  EXPECT_EQ(r.shape(), Shape{});
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{-3}));
  r = eval("Constant", {}, testing::attrs({{"value_float", 0.1}}));
  EXPECT_EQ(values<float>(r), (std::vector<float>{0.1f}));
}

TEST_F(ConstantEvalTest, ShapeOfNonConstantInput) {
  Value* x = t.in(f32({2, 3, 4}));
  EXPECT_EQ(values<int64_t>(eval("Shape", {x})), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(values<int64_t>(
                eval("Shape", {x}, testing::attrs({{"start", int64_t{1}}, {"end", int64_t{-1}}}))),
            (std::vector<int64_t>{3}));
  EXPECT_EQ(values<int64_t>(eval("Shape", {x}, testing::attrs({{"start", int64_t{-2}}}))),
            (std::vector<int64_t>{3, 4}));
}

TEST_F(ConstantEvalTest, GatherAnyAxisAndNegativeIndices) {
  std::vector<int64_t> data(12);
  for (int i = 0; i < 12; ++i) data[static_cast<size_t>(i)] = i;  // [[0..3],[4..7],[8..11]]
  Value* d = c(int64Array({3, 4}, data));
  NDArray r = eval("Gather", {d, ints({-1, 0})}, testing::attrs({{"axis", int64_t{1}}}));
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{3, 0, 7, 4, 11, 8}));
  r = eval("Gather", {d, c(int64Array({}, {1}))});
  EXPECT_EQ(r.shape(), (Shape{4}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{4, 5, 6, 7}));
  r = eval("Gather", {d, c(int32Array({2, 1}, {2, -3}))});
  EXPECT_EQ(r.shape(), (Shape{2, 1, 4}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{8, 9, 10, 11, 0, 1, 2, 3}));
}

TEST_F(ConstantEvalTest, ReshapeLikesKeepData) {
  Value* d = c(floatArray({2, 3}, {1, 2, 3, 4, 5, 6}));
  std::vector<float> expected = {1, 2, 3, 4, 5, 6};
  NDArray r = eval("Unsqueeze", {d, ints({0})});
  EXPECT_EQ(r.shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(values<float>(r), expected);
  r = eval("Reshape", {d, ints({3, -1})});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(values<float>(r), expected);
  r = eval("Flatten", {d}, testing::attrs({{"axis", int64_t{0}}}));
  EXPECT_EQ(r.shape(), (Shape{1, 6}));
  r = eval("Squeeze", {c(floatArray({1, 3, 1}, {7, 8, 9}))});
  EXPECT_EQ(r.shape(), (Shape{3}));
  EXPECT_EQ(values<float>(r), (std::vector<float>{7, 8, 9}));
  r = eval("Identity", {d});
  EXPECT_EQ(values<float>(r), expected);
}

TEST_F(ConstantEvalTest, Concat) {
  NDArray r = eval("Concat", {ints({1, 2}), ints({3})}, testing::attrs({{"axis", int64_t{0}}}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{1, 2, 3}));
  r = eval("Concat", {c(int64Array({2, 2}, {1, 2, 3, 4})), c(int64Array({2, 1}, {5, 6}))},
           testing::attrs({{"axis", int64_t{-1}}}));
  EXPECT_EQ(r.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{1, 2, 5, 3, 4, 6}));
}

// Every part of a Split, along an inner axis (rows interleave) and with uneven given sizes.
TEST_F(ConstantEvalTest, SplitGivesEveryPart) {
  Value* x = c(int64Array({2, 3}, {1, 2, 3, 4, 5, 6}));
  Node* n = t.add("Split", {x, ints({1, 2})}, testing::attrs({{"axis", int64_t{1}}}), 2);
  std::optional<std::vector<NDArray>> r = evaluateConstant(*n);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(values<int64_t>((*r)[0]), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(values<int64_t>((*r)[1]), (std::vector<int64_t>{2, 3, 5, 6}));
  n = t.add("Split", {c(int64Array({4}, {7, 8, 9, 10}))}, {}, 2);
  r = evaluateConstant(*n);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(values<int64_t>((*r)[1]), (std::vector<int64_t>{9, 10}));
}

TEST_F(ConstantEvalTest, SliceWithStepsAndClamping) {
  std::vector<int64_t> data(10);
  for (int64_t i = 0; i < 10; ++i) data[static_cast<size_t>(i)] = i * 10;
  Value* d = c(int64Array({10}, data));
  EXPECT_EQ(values<int64_t>(eval("Slice", {d, ints({8}), ints({1}), ints({0}), ints({-3})})),
            (std::vector<int64_t>{80, 50, 20}));
  EXPECT_EQ(values<int64_t>(eval("Slice", {d, ints({-3}), ints({100})})),
            (std::vector<int64_t>{70, 80, 90}));
  EXPECT_EQ(
      values<int64_t>(eval("Slice", {d, ints({-1}), ints({INT64_MIN}), ints({0}), ints({-4})})),
      (std::vector<int64_t>{90, 50, 10}));
  Value* m = c(int64Array({3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}));
  NDArray r = eval("Slice", {m, ints({1, 3}), ints({3, 0}), ints({0, 1}), ints({1, -2})});
  EXPECT_EQ(r.shape(), (Shape{2, 2}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{13, 11, 23, 21}));
}

TEST_F(ConstantEvalTest, ExpandAndTranspose) {
  NDArray r = eval("Expand", {c(int64Array({3, 1}, {1, 2, 3})), ints({2, 1, 2})});
  EXPECT_EQ(r.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  r = eval("Transpose", {c(int64Array({2, 3}, {1, 2, 3, 4, 5, 6}))});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
  std::vector<int64_t> data(24);
  for (int i = 0; i < 24; ++i) data[static_cast<size_t>(i)] = i;
  r = eval("Transpose", {c(int64Array({2, 3, 4}, data))},
           testing::attrs({{"perm", std::vector<int64_t>{1, 2, 0}}}));
  ASSERT_EQ(r.shape(), (Shape{3, 4, 2}));
  // out[i][j][k] = in[k][i][j]
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      for (int64_t k = 0; k < 2; ++k) {
        EXPECT_EQ(r.data<int64_t>()[(i * 4 + j) * 2 + k], k * 12 + i * 4 + j);
      }
    }
  }
}

// A few bytes of model asked ConstantOfShape, Expand and Range for terabytes (seeds written for
// onnx_import_fuzzer); outputs beyond the budget are left to run time instead of being folded.
TEST_F(ConstantEvalTest, FoldsStopWhereTheirBudgetEnds) {
  auto scalar = [&](int64_t v) { return c(int64Array({}, {v})); };
  EXPECT_FALSE(evaluateConstant(*t.add("ConstantOfShape", {ints({1000000, 1000000})})));
  EXPECT_FALSE(
      evaluateConstant(*t.add("Expand", {c(floatArray({1}, {1.0f})), ints({1000000, 1000000})})));
  EXPECT_FALSE(evaluateConstant(*t.add("Range", {scalar(0), scalar(10000000000000), scalar(1)})));
  // On its own a fold may produce kFoldAllowance bytes beyond twice its inputs.
  int64_t allowance = static_cast<int64_t>(kFoldAllowance / 4);
  EXPECT_EQ(eval("ConstantOfShape", {ints({allowance})}).numel(), allowance);
  EXPECT_FALSE(evaluateConstant(*t.add("ConstantOfShape", {ints({allowance + 1000})})));
  // A shared budget shrinks with every fold; a fold it cannot pay for computes nothing.
  FoldBudget budget(1000);
  EXPECT_TRUE(evaluateConstant(*t.add("ConstantOfShape", {ints({200})}), budget));
  EXPECT_EQ(budget.remaining(), 200u);
  EXPECT_FALSE(evaluateConstant(*t.add("ConstantOfShape", {ints({51})}), budget));
  EXPECT_EQ(budget.remaining(), 200u);
  EXPECT_TRUE(evaluateConstant(*t.add("ConstantOfShape", {ints({50})}), budget));
  EXPECT_EQ(budget.remaining(), 0u);
}

TEST_F(ConstantEvalTest, ConstantOfShapeAndRange) {
  NDArray r = eval("ConstantOfShape", {ints({2, 3})});
  EXPECT_EQ(r.dtype(), DataType::float32());
  EXPECT_EQ(values<float>(r), std::vector<float>(6, 0.0f));
  r = eval("ConstantOfShape", {ints({2})}, testing::attrs({{"value", int64Array({1}, {7})}}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{7, 7}));

  auto scalar = [&](int64_t v) { return c(int64Array({}, {v})); };
  EXPECT_EQ(values<int64_t>(eval("Range", {scalar(1), scalar(10), scalar(3)})),
            (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(values<int64_t>(eval("Range", {scalar(5), scalar(-1), scalar(-2)})),
            (std::vector<int64_t>{5, 3, 1}));
  auto fscalar = [&](float v) { return c(floatArray({}, {v})); };
  std::vector<float> expected;
  for (float v = 0.0f; expected.size() < 4; v += 0.3f) expected.push_back(v);  // ceil(1/0.3) = 4
  EXPECT_EQ(values<float>(eval("Range", {fscalar(0.0f), fscalar(1.0f), fscalar(0.3f)})), expected);
}

TEST_F(ConstantEvalTest, IntegerArithmeticWrapsAndTruncates) {
  Value* a = c(int64Array({2, 1}, {-7, 7}));
  Value* b = c(int64Array({2}, {2, -2}));
  EXPECT_EQ(values<int64_t>(eval("Add", {a, b})), (std::vector<int64_t>{-5, -9, 9, 5}));
  EXPECT_EQ(values<int64_t>(eval("Sub", {a, b})), (std::vector<int64_t>{-9, -5, 5, 9}));
  EXPECT_EQ(values<int64_t>(eval("Mul", {a, b})), (std::vector<int64_t>{-14, 14, 14, -14}));
  EXPECT_EQ(values<int64_t>(eval("Div", {a, b})), (std::vector<int64_t>{-3, 3, 3, -3}));
  EXPECT_EQ(values<int64_t>(eval("Neg", {a})), (std::vector<int64_t>{7, -7}));

  int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(values<int64_t>(eval("Div", {c(int64Array({1}, {kMin})), ints({-1})})),
            (std::vector<int64_t>{kMin}));
  EXPECT_EQ(values<int64_t>(eval("Add", {c(int64Array({1}, {INT64_MAX})), ints({1})})),
            (std::vector<int64_t>{kMin}));
  NDArray r = eval("Mul", {c(int32Array({1}, {65536})), c(int32Array({1}, {65536}))});
  EXPECT_EQ(values<int32_t>(r), (std::vector<int32_t>{0}));

  Node* div0 = t.add("Div", {ints({1}), ints({0})});
  try {
    evaluateConstant(*div0);
    ADD_FAILURE() << "expected division by zero to throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Div '"), std::string::npos) << e.what();
  }
}

TEST_F(ConstantEvalTest, FloatArithmeticMatchesFloatOps) {
  std::vector<float> av = {0.1f, 1e30f, -3.5f, 7.0f};
  std::vector<float> bv = {0.2f, 1e10f, 0.3f, 3.0f};
  Value* a = c(floatArray({4}, av));
  Value* b = c(floatArray({4}, bv));
  std::vector<float> add, sub, mul, div;
  for (size_t i = 0; i < 4; ++i) {
    add.push_back(av[i] + bv[i]);
    sub.push_back(av[i] - bv[i]);
    mul.push_back(av[i] * bv[i]);
    div.push_back(av[i] / bv[i]);
  }
  EXPECT_EQ(values<float>(eval("Add", {a, b})), add);
  EXPECT_EQ(values<float>(eval("Sub", {a, b})), sub);
  EXPECT_EQ(values<float>(eval("Mul", {a, b})), mul);
  EXPECT_EQ(values<float>(eval("Div", {a, b})), div);
}

TEST_F(ConstantEvalTest, EqualAndWhere) {
  NDArray r = eval("Equal", {ints({1, 2, 3}), c(int64Array({}, {2}))});
  EXPECT_EQ(r.dtype(), DataType::boolean());
  EXPECT_EQ(values<uint8_t>(r), (std::vector<uint8_t>{0, 1, 0}));
  Value* cond = c(testing::makeArray<uint8_t>({3}, DataType::boolean(), {1, 0, 1}));
  r = eval("Where", {cond, ints({1, 2, 3}), c(int64Array({}, {-1}))});
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{1, -1, 3}));
}

TEST_F(ConstantEvalTest, CastTruncatesSaturatesAndRounds) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  Value* f = c(floatArray({5}, {1.7f, -1.7f, 3e9f, nan, -3e9f}));
  NDArray r = eval("Cast", {f}, testing::attrs({{"to", int64_t{6}}}));  // int32
  EXPECT_EQ(values<int32_t>(r), (std::vector<int32_t>{1, -1, INT32_MAX, 0, INT32_MIN}));
  int64_t big = (int64_t{1} << 53) + 1;
  r = eval("Cast", {c(int64Array({2}, {big, -5}))}, testing::attrs({{"to", int64_t{1}}}));
  EXPECT_EQ(values<float>(r), (std::vector<float>{static_cast<float>(big), -5.0f}));
  r = eval("Cast", {c(floatArray({3}, {0.0f, -0.5f, 2.0f}))}, testing::attrs({{"to", int64_t{9}}}));
  EXPECT_EQ(values<uint8_t>(r), (std::vector<uint8_t>{0, 1, 1}));
  r = eval("Cast", {c(floatArray({2}, {1.0f, 65504.0f}))}, testing::attrs({{"to", int64_t{10}}}));
  EXPECT_EQ(values<uint16_t>(r), (std::vector<uint16_t>{0x3C00, 0x7BFF}));  // IEEE half bits
  r = eval("Cast", {c(int64Array({1}, {300}))}, testing::attrs({{"to", int64_t{2}}}));  // uint8
  EXPECT_EQ(values<uint8_t>(r), (std::vector<uint8_t>{44}));  // 300 mod 256
}

TEST_F(ConstantEvalTest, DeclinesWhatItCannotEvaluate) {
  Value* x = t.in(testing::i64({2}));
  EXPECT_FALSE(evaluateConstant(*t.add("Add", {x, ints({1, 2})})).has_value());
  EXPECT_FALSE(evaluateConstant(*t.add("Relu", {c(floatArray({1}, {1.0f}))})).has_value());
  NDArray half = testing::makeArray<uint16_t>({1}, DataType::float16(), {0x3C00});
  EXPECT_FALSE(evaluateConstant(*t.add("Add", {c(half), c(half)})).has_value());
  EXPECT_TRUE(isConstantEvaluable("Gather"));
  EXPECT_FALSE(isConstantEvaluable("Conv"));
}

}  // namespace
}  // namespace kiln::ir
