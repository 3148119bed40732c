// Constant evaluation of comparisons, And/Or/Xor/Not, Min/Max and Mod, checked against
// hand-computed results and, for Mod, against std::fmod on random values.
#include <cmath>
#include <random>

#include "ir_test_util.h"
#include "kiln/ir/constant_eval.h"

namespace kiln::ir {
namespace {

using testing::floatArray;
using testing::int32Array;
using testing::int64Array;
using testing::OneNode;
using testing::values;

NDArray boolArray(const Shape& s, const std::vector<uint8_t>& v) {
  return testing::makeArray(s, DataType::boolean(), v);
}

class LogicEvalTest : public ::testing::Test {
 protected:
  NDArray eval(const std::string& op, std::vector<Value*> inputs, Attrs attrs = {}) {
    Node* n = t.add(op, std::move(inputs), std::move(attrs));
    std::optional<std::vector<NDArray>> r = evaluateConstant(*n);
    EXPECT_TRUE(r.has_value()) << op;
    if (!r) return NDArray::empty({0}, DataType::float32());
    return (*r)[0];
  }
  Value* c(NDArray a) { return t.constant(std::move(a)); }
  OneNode t;
};

TEST_F(LogicEvalTest, ComparisonsBroadcast) {
  Value* a = c(int64Array({2, 1}, {1, 3}));
  Value* b = c(int64Array({3}, {0, 1, 3}));
  // Rows: a=1 and a=3 against b = 0, 1, 3.
  EXPECT_EQ(values<uint8_t>(eval("Less", {a, b})), (std::vector<uint8_t>{0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(values<uint8_t>(eval("LessOrEqual", {a, b})), (std::vector<uint8_t>{0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(values<uint8_t>(eval("Greater", {a, b})), (std::vector<uint8_t>{1, 0, 0, 1, 1, 0}));
  EXPECT_EQ(values<uint8_t>(eval("GreaterOrEqual", {a, b})),
            (std::vector<uint8_t>{1, 1, 0, 1, 1, 1}));
  NDArray f = eval("Less", {c(floatArray({2}, {0.5f, NAN})), c(floatArray({}, {1.0f}))});
  EXPECT_EQ(f.dtype(), DataType::boolean());
  EXPECT_EQ(values<uint8_t>(f), (std::vector<uint8_t>{1, 0}));
}

TEST_F(LogicEvalTest, LogicalOps) {
  Value* a = c(boolArray({4}, {0, 0, 1, 1}));
  Value* b = c(boolArray({4}, {0, 1, 0, 1}));
  EXPECT_EQ(values<uint8_t>(eval("And", {a, b})), (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(values<uint8_t>(eval("Or", {a, b})), (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(values<uint8_t>(eval("Xor", {a, b})), (std::vector<uint8_t>{0, 1, 1, 0}));
  EXPECT_EQ(values<uint8_t>(eval("Not", {a})), (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(values<uint8_t>(eval("And", {a, c(boolArray({}, {1}))})),
            (std::vector<uint8_t>{0, 0, 1, 1}));
}

TEST_F(LogicEvalTest, VariadicMinMax) {
  Value* a = c(int64Array({3}, {5, -2, 7}));
  Value* b = c(int64Array({}, {1}));
  Value* d = c(int64Array({1, 3}, {0, 9, 7}));
  EXPECT_EQ(values<int64_t>(eval("Max", {a, b, d})), (std::vector<int64_t>{5, 9, 7}));
  EXPECT_EQ(values<int64_t>(eval("Min", {a, b, d})), (std::vector<int64_t>{0, -2, 1}));
  EXPECT_EQ(values<int64_t>(eval("Max", {a})), (std::vector<int64_t>{5, -2, 7}));
  NDArray f = eval("Min", {c(floatArray({2}, {1.5f, NAN})), c(floatArray({2}, {-1.0f, 0.0f}))});
  EXPECT_EQ(values<float>(f)[0], -1.0f);
  EXPECT_TRUE(std::isnan(values<float>(f)[1]));
  EXPECT_EQ(
      values<int32_t>(eval("Max", {c(int32Array({2}, {3, -4})), c(int32Array({2}, {1, -8}))})),
      (std::vector<int32_t>{3, -4}));
}

TEST_F(LogicEvalTest, ModSignRules) {
  Value* a = c(int64Array({4}, {7, -7, 7, -7}));
  Value* b = c(int64Array({4}, {3, 3, -3, -3}));
  EXPECT_EQ(values<int64_t>(eval("Mod", {a, b})), (std::vector<int64_t>{1, 2, -2, -1}));
  EXPECT_EQ(values<int64_t>(eval("Mod", {a, b}, testing::attrs({{"fmod", int64_t{1}}}))),
            (std::vector<int64_t>{1, -1, 1, -1}));
  Node* n = t.add("Mod", {a, c(int64Array({}, {0}))});
  try {
    evaluateConstant(*n);
    ADD_FAILURE() << "expected a kiln::Error for Mod by zero";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Mod by zero"), std::string::npos) << e.what();
  }
}

TEST_F(LogicEvalTest, FloatModMatchesFmod) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> dist(-20.0f, 20.0f);
  std::vector<float> x(50), y(50);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
    if (std::fabs(y[i]) < 0.1f) y[i] = 1.0f;
  }
  NDArray r = eval("Mod", {c(floatArray({50}, x)), c(floatArray({50}, y))},
                   testing::attrs({{"fmod", int64_t{1}}}));
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(values<float>(r)[i], static_cast<float>(std::fmod(double(x[i]), double(y[i])))) << i;
  }
}

TEST_F(LogicEvalTest, NonConstantInputsAreNotEvaluated) {
  Node* n = t.add("Less", {t.in(testing::i64({2})), c(int64Array({2}, {1, 2}))});
  EXPECT_FALSE(evaluateConstant(*n).has_value());
  EXPECT_TRUE(isConstantEvaluable("Max"));
  EXPECT_FALSE(isConstantEvaluable("Elu"));
}

}  // namespace
}  // namespace kiln::ir
