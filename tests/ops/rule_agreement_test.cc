// The op rules of src/opdef give one answer at compile time and at run time: each case adds its
// node twice, once with constant inputs (shapes inferred and the node folded, or compiled at -O0)
// and once with graph inputs (executed by the runtime's op), and expects the same tensor from
// both, computed here from ONNX's definition. Each case once disagreed between the two sides.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/runtime_op_call.h"
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

// OP on INPUTS, both ways: the graph IR's inference with the inputs as constants, and the runtime's
// implementation called on them. Returns each side's output shapes, or its error.
struct BothSides {
  std::vector<Shape> compiled, ran;
  std::string compileError, runError;
};

BothSides runBothSides(const std::string& op, const std::vector<HostTensor>& inputs,
                       const ir::Attrs& a, size_t numOutputs) {
  ir::Graph g;
  std::vector<ir::Value*> constants;
  std::vector<runtime::NDArray> values;
  for (const HostTensor& t : inputs) {
    values.push_back(toNDArray(t));
    constants.push_back(g.addConstant(g.uniqueName("c"), values.back()));
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < numOutputs; ++i) names.push_back(strCat("y", i));
  ir::Node* node = g.addNode(op, "n", constants, names);
  node->attrs = a;
  BothSides r;
  try {
    ir::inferTypes(*node);
    for (const ir::Value* v : node->outputs) r.compiled.push_back(v->type.shape);
  } catch (const Error& e) {
    r.compileError = e.what();
  }
  try {
    for (const runtime::NDArray& out : ir::runRuntimeOp(*node, values))
      r.ran.push_back(out.shape());
  } catch (const Error& e) {
    r.runError = e.what();
  }
  return r;
}

// Split-18's num_outputs cuts 7 into 3, 3 and 1; the runtime once read only the split sizes and
// refused 7 as not divisible by 3.
TEST(RuleAgreement, SplitNumOutputsLeavesTheRestToTheLastPart) {
  BothSides r = runBothSides("Split", {ints({7}, {0, 1, 2, 3, 4, 5, 6}, DataType::float32())},
                             attrs({{"num_outputs", int64_t{3}}}), 3);
  std::vector<Shape> want = {{3}, {3}, {1}};
  EXPECT_EQ(r.compileError, "");
  EXPECT_EQ(r.runError, "");
  EXPECT_EQ(r.compiled, want);
  EXPECT_EQ(r.ran, want);
}

// An empty split input means "not given" (equal parts), as some exporters write it and ONNX
// Runtime reads it; the compiler once refused it as one entry short per output.
TEST(RuleAgreement, SplitEmptySizesInputMeansEqualParts) {
  BothSides r = runBothSides(
      "Split", {ints({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, DataType::float32()), int64s({})}, {}, 2);
  std::vector<Shape> want = {{2, 2}, {2, 2}};
  EXPECT_EQ(r.compileError, "");
  EXPECT_EQ(r.runError, "");
  EXPECT_EQ(r.compiled, want);
  EXPECT_EQ(r.ran, want);
}

// A tile count that overflows int64 is an error on both sides; the runtime once wrapped around.
TEST(RuleAgreement, TileOverflowIsAnErrorBothWays) {
  double big = 4611686018427387904.0;  // 2^62: 4 x 2^62 overflows
  BothSides r =
      runBothSides("Tile", {ints({4}, {1, 2, 3, 4}, DataType::float32()), ints({1}, {big})}, {}, 1);
  EXPECT_NE(r.compileError.find("overflows int64"), std::string::npos) << r.compileError;
  EXPECT_NE(r.runError.find("overflows int64"), std::string::npos) << r.runError;
}

// An output_shape smaller than MaxUnpool's unpooled tensor is refused both ways; the compiler once
// took it and left the refusal to run time.
TEST(RuleAgreement, MaxUnpoolOutputShapeMustHoldTheUnpooledTensor) {
  HostTensor x = ints({1, 1, 2, 2}, {1, 2, 3, 4}, DataType::float32());
  HostTensor indices = ints({1, 1, 2, 2}, {0, 3, 8, 15});
  BothSides r = runBothSides("MaxUnpool", {x, indices, int64s({1, 1, 3, 3})},
                             attrs({{"kernel_shape", Dims{2, 2}}, {"strides", Dims{2, 2}}}), 1);
  EXPECT_NE(r.compileError.find("does not hold X"), std::string::npos) << r.compileError;
  EXPECT_NE(r.runError.find("does not hold X"), std::string::npos) << r.runError;
}

// A direction ONNX does not define is refused both ways; the runtime once ran it as forward.
TEST(RuleAgreement, RecurrentDirectionMustBeKnown) {
  HostTensor x = ints({2, 1, 3}, {1, 2, 3, 4, 5, 6}, DataType::float32());
  HostTensor w = ints({1, 4, 3}, std::vector<double>(12, 0.5), DataType::float32());
  HostTensor rec = ints({1, 4, 4}, std::vector<double>(16, 0.25), DataType::float32());
  BothSides r =
      runBothSides("RNN", {x, w, rec},
                   attrs({{"hidden_size", int64_t{4}}, {"direction", std::string("backward")}}), 2);
  EXPECT_NE(r.compileError.find("direction 'backward'"), std::string::npos) << r.compileError;
  EXPECT_NE(r.runError.find("direction 'backward'"), std::string::npos) << r.runError;
}

// GridSample's modes are checked both ways; the compiler once accepted any and left the refusal
// to run time.
TEST(RuleAgreement, GridSampleModeIsCheckedAtCompileTimeToo) {
  HostTensor x = ints({1, 1, 2, 2}, {1, 2, 3, 4}, DataType::float32());
  HostTensor grid = ints({1, 1, 1, 2}, {0, 0}, DataType::float32());
  BothSides r = runBothSides("GridSample", {x, grid}, attrs({{"mode", std::string("linear")}}), 1);
  EXPECT_NE(r.compileError.find("mode 'linear' is not known"), std::string::npos) << r.compileError;
  EXPECT_NE(r.runError.find("mode 'linear' is not known"), std::string::npos) << r.runError;
}

// ScatterND's updates must have indices' leading dims then data's dims after k; neither side
// checked, and the runtime read past a short updates tensor.
TEST(RuleAgreement, ScatterNdUpdatesMustFitIndicesAndData) {
  HostTensor data = ints({4, 2}, std::vector<double>(8, 0), DataType::float32());
  HostTensor indices = ints({3, 1}, {0, 1, 3});
  HostTensor updates = ints({2, 2}, {1, 2, 3, 4}, DataType::float32());  // expected [3,2]
  BothSides r = runBothSides("ScatterND", {data, indices, updates}, {}, 1);
  EXPECT_NE(r.compileError.find("expected [3,2]"), std::string::npos) << r.compileError;
  EXPECT_NE(r.runError.find("expected [3,2]"), std::string::npos) << r.runError;
}

// A negative n-gram slot is refused both ways; the runtime once wrote before its output.
TEST(RuleAgreement, TfIdfSlotsMustBeNonNegative) {
  HostTensor x = ints({4}, {1, 2, 1, 3});
  BothSides r = runBothSides("TfIdfVectorizer", {x},
                             attrs({{"mode", std::string("TF")},
                                    {"min_gram_length", int64_t{1}},
                                    {"max_gram_length", int64_t{1}},
                                    {"max_skip_count", int64_t{0}},
                                    {"ngram_counts", Dims{0}},
                                    {"ngram_indexes", Dims{0, -1}},
                                    {"pool_int64s", Dims{1, 2}}}),
                             1);
  EXPECT_NE(r.compileError.find("expected indexes >= 0"), std::string::npos) << r.compileError;
  EXPECT_NE(r.runError.find("expected indexes >= 0"), std::string::npos) << r.runError;
}

}  // namespace
}  // namespace kiln::optest
