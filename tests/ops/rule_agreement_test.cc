// The op rules of src/opdef give one answer at compile time and at run time: each case adds its
// node twice, once with constant inputs (shapes inferred and the node folded, or compiled at -O0)
// and once with graph inputs (executed by the runtime's op), and expects the same tensor from
// both, computed here from ONNX's definition. Each case once disagreed between the two sides.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "op_harness.h"

namespace kiln::optest {
namespace {

// Adds OP on INPUTS as constants and as graph inputs; both outputs must equal WANT (RTOL 0:
// exactly, as both sides apply one rule).
void addBothWays(OpGraph& g, const std::string& op, const std::vector<HostTensor>& inputs,
                 const ir::Attrs& a, const HostTensor& want, const std::string& what) {
  std::vector<ir::Value*> constants, graphInputs;
  for (const HostTensor& t : inputs) {
    constants.push_back(g.constant(t));
    graphInputs.push_back(g.input(t));
  }
  ir::Value* folded = g.node(op, constants, a);
  EXPECT_TRUE(folded->type.isStatic()) << what << ": " << folded->type.str();
  EXPECT_EQ(folded->type.shape, want.shape) << what << " at compile time";
  g.expect(folded, want, what + " (constant inputs)", 0.0);
  g.expect(g.node(op, graphInputs, a), want, what + " (run-time inputs)", 0.0);
}

HostTensor scalarOf(double v, DataType dtype) { return ints({}, {v}, dtype); }

// Range's length is exact for integers: the difference 2^61 + 256 is not a double, and
// computing it in double (as the runtime once did) gave 4 elements instead of 5.
TEST(RuleAgreement, RangeCountIsExactForLargeIntegers) {
  checkAtAllLevels([](OpGraph& g) {
    double start = -1152921504606846976.0;  // -2^60
    double limit = 1152921504606846976.0 + 256.0;
    double delta = 576460752303423488.0;  // 2^59
    HostTensor want = ints({5}, {-2 * delta, -delta, 0, delta, 2 * delta});
    addBothWays(g, "Range",
                {scalarOf(start, DataType::int64()), scalarOf(limit, DataType::int64()),
                 scalarOf(delta, DataType::int64())},
                {}, want, "Range int64 near 2^61");
  });
}

// Range's float values accumulate in float32, as ONNX's function body adds delta to the previous
// value; start + i * delta (the runtime's and the compiled kernel's old rule) differs in the last
// bits after a few hundred steps.
TEST(RuleAgreement, RangeValuesAccumulateInTheElementType) {
  checkAtAllLevels([](OpGraph& g) {
    float start = 0.1F, delta = 0.1F, limit = 40.0F;
    std::vector<double> values;
    for (float v = start; values.size() < 400; v += delta) values.push_back(v);
    HostTensor want = ints({400}, values, DataType::float32());
    addBothWays(g, "Range",
                {scalarOf(start, DataType::float32()), scalarOf(limit, DataType::float32()),
                 scalarOf(delta, DataType::float32())},
                {}, want, "Range float32 accumulated");
  });
}

// Upsample-7's scales attribute holds floats; the runtime once read it as integers and refused
// 1.5. Nearest, asymmetric coordinates rounded down: output i reads input floor(i / scale).
TEST(RuleAgreement, UpsampleSevenTakesFloatScales) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = ints({1, 1, 2, 2}, {1, 2, 3, 4}, DataType::float32());
    HostTensor want =
        ints({1, 1, 3, 5}, {1, 1, 1, 2, 2, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4}, DataType::float32());
    ir::Attrs a = attrs(
        {{"mode", std::string("nearest")}, {"scales", std::vector<double>{1.0, 1.0, 1.5, 2.5}}});
    ir::Value* y = g.node("Upsample", {g.input(x)}, a);
    EXPECT_EQ(y->type.shape, want.shape);
    g.expect(y, want, "Upsample-7 scales [1,1,1.5,2.5]", 0.0);
  });
}

// An INT_MAX end with a negative step means "to the start" (numpy's None), as in ONNX Runtime;
// the runtime once clamped it to the last index and returned nothing.
TEST(RuleAgreement, SliceIntMaxEndWithNegativeStepReverses) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = ints({5}, {0, 1, 2, 3, 4}, DataType::float32());
    double intMax = std::numeric_limits<int32_t>::max();
    addBothWays(g, "Slice", {x, int64s({-1}), ints({1}, {intMax}), int64s({0}), int64s({-1})}, {},
                ints({5}, {4, 3, 2, 1, 0}, DataType::float32()), "Slice [-1:INT_MAX:-1]");
    addBothWays(g, "Slice", {x, int64s({3}), ints({1}, {intMax}), int64s({0}), int64s({1})}, {},
                ints({2}, {3, 4}, DataType::float32()), "Slice [3:INT_MAX]");
  });
}

}  // namespace
}  // namespace kiln::optest
