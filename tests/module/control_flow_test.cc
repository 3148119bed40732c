// Control flow compiled and run: Loop, If and Scan written in the text IR (their bodies as graph
// attributes), compiled into one library whose bodies run as executors of their own, checked
// against values worked out by hand here.
#include <gtest/gtest.h>

#include "kiln/driver/compile.h"
#include "kiln/ir/parser.h"
#include "kiln/ir/printer.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::DataType;
using runtime::Device;
using runtime::Module;
using runtime::NDArray;

// acc_{k+1} = acc_k + w with w = 2x (an outer value the body captures), stacking
// (acc_k + w) * 0.5 per iteration, for m iterations.
const char* kLoop = R"(graph loop(%m: int64[], %x: float32[4], %acc0: float32[4]) opset 16 {
  %two = const float32[] [2.0]
  %w = Mul(%x, %two)
  %acc, %hist = Loop[loop](%m, _, %acc0, %w) {body=graph b(%i: int64[], %c: bool[], %a: float32[4], %w: float32[4]) opset 16 {
      %half = const float32[] [0.5]
      %s = Add(%a, %w)
      %h = Mul(%s, %half)
      %cc = Identity(%c)
      return %cc, %s, %h
    }, kiln.captured=1}
  return %acc, %hist
}
)";

// y = x * x when c, else the sum of x (a shape of its own): y's size is known only at run time.
const char* kIf = R"(graph branch(%c: bool[], %x: float32[4]) opset 16 {
  %y = If[choose](%c, %x) {else_branch=graph e(%x: float32[4]) opset 16 {
      %s = ReduceSum(%x) {keepdims=1}
      return %s
    }, kiln.captured=1, then_branch=graph t(%x: float32[4]) opset 16 {
      %p = Mul(%x, %x)
      return %p
    }}
  return %y
}
)";

// A running sum over x's columns, last column first; the sums are appended in step order.
const char* kScan = R"(graph scan(%s0: float32[2], %x: float32[2,3]) opset 16 {
  %s, %ys = Scan[sc](%s0, %x) {body=graph b(%acc: float32[2], %col: float32[2]) opset 16 {
      %next = Add(%acc, %col)
      %out = Identity(%next)
      return %next, %out
    }, num_scan_inputs=1, scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1]}
  return %s, %ys
}
)";

TEST(ControlFlow, TheTextOfABodyRoundTrips) {
  for (const char* text : {kLoop, kIf, kScan}) {
    std::string printed = ir::printGraph(*ir::parseGraph(text));
    EXPECT_EQ(ir::printGraph(*ir::parseGraph(printed)), printed);
    EXPECT_NE(printed.find("=graph "), std::string::npos) << printed;
  }
}

TEST(ControlFlow, LoopCarriesValuesAndStacksScanOutputs) {
  Module ex = executorOfText(kLoop, "loop");
  std::vector<float> x = {1, -2, 0.5f, 3}, acc0 = {0, 1, 2, 3};
  ex["set_input"]("x", toArray(x, {4}));
  ex["set_input"]("acc0", toArray(acc0, {4}));
  for (int64_t m : {3, 0, 5, 1}) {  // one executor: bodies are made once, reused
    ex["set_input"]("m", int64Scalar(m));
    ex["run"]();
    NDArray acc = ex["get_output"](0).asNDArray();
    NDArray hist = ex["get_output"](1).asNDArray();
    ASSERT_EQ(hist.shape(), (runtime::Shape{m, 4})) << "m=" << m;
    std::vector<float> a = toVector(acc), h = toVector(hist);
    for (size_t j = 0; j < 4; ++j) {
      EXPECT_FLOAT_EQ(a[j], acc0[j] + static_cast<float>(m) * 2 * x[j]) << "m=" << m;
      for (int64_t k = 0; k < m; ++k) {
        float want = (acc0[j] + static_cast<float>(k + 1) * 2 * x[j]) * 0.5f;
        EXPECT_FLOAT_EQ(h[static_cast<size_t>(k) * 4 + j], want) << "m=" << m << " k=" << k;
      }
    }
  }
}

TEST(ControlFlow, IfRunsTheChosenBranchWithItsOwnShape) {
  Module ex = executorOfText(kIf, "if");
  std::vector<float> x = {1, -2, 0.5f, 3};
  ex["set_input"]("x", toArray(x, {4}));
  ex["set_input"]("c", boolScalar(true));
  ex["run"]();
  EXPECT_EQ(toVector(ex["get_output"](0).asNDArray()), (std::vector<float>{1, 4, 0.25f, 9}));
  ex["set_input"]("c", boolScalar(false));
  ex["run"]();
  NDArray y = ex["get_output"](0).asNDArray();
  EXPECT_EQ(y.shape(), (runtime::Shape{1}));
  EXPECT_FLOAT_EQ(toVector(y)[0], 2.5f);
}

TEST(ControlFlow, ScanRunsReversedAlongAnAxis) {
  Module ex = executorOfText(kScan, "scan");
  std::vector<float> x = {1, 2, 3, 10, 20, 30};  // rows [1,2,3] and [10,20,30]
  ex["set_input"]("s0", toArray({100, 200}, {2}));
  ex["set_input"]("x", toArray(x, {2, 3}));
  ex["run"]();
  EXPECT_EQ(toVector(ex["get_output"](0).asNDArray()), (std::vector<float>{106, 260}));
  // Step t reads column 2 - t and appends its running sum as column t.
  EXPECT_EQ(toVector(ex["get_output"](1).asNDArray()),
            (std::vector<float>{103, 105, 106, 230, 250, 260}));
}

TEST(ControlFlow, AConditionOfManyValuesIsRefused) {
  std::string text = kIf;
  text.replace(text.find("%c: bool[]"), 10, "%c: bool[2]");
  std::string err = errorOf([&] { ir::parseGraph(text); });
  EXPECT_NE(err.find("If 'choose': cond (input 0) is bool[2]; expected one bool"),
            std::string::npos)
      << err;
}

TEST(ControlFlow, AnAotExecutorRefusesControlFlow) {
  std::unique_ptr<ir::Graph> g = ir::parseGraph(kLoop);
  driver::CompileOptions options;
  options.executor = "aot";
  std::string err =
      errorOf([&] { driver::compileGraph(*g, scratchDir() + "/loop_aot.so", options); });
  EXPECT_NE(err.find("Loop 'loop'"), std::string::npos) << err;
}

}  // namespace
}  // namespace kiln::test
