// Checks lowerGroup's contract (parameter order, scalar immediates, errors) and, through the loop
// IR interpreter, that lowered kernels compute what naive loops compute.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "graph_runner.h"
#include "kiln/ir/fused_group.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/parser.h"
#include "kiln/kernel/lower.h"
#include "kiln/runtime/runtime_op.h"
#include "kiln/support/error.h"
#include "kiln/tir/printer.h"

namespace kiln::kernel {

using namespace tir;  // NOLINT(google-build-using-namespace)
namespace {

using testing::expectNear;
using testing::Storage;

Storage randomStorage(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Storage s(n);
  for (double& v : s) v = dist(rng);
  return s;
}

LoweredKernel lowerOnly(const ir::Graph& g) {
  std::vector<ir::FusedGroup> groups = ir::collectGroups(g);
  EXPECT_EQ(groups.size(), 1u);
  return lowerGroup(groups.at(0), "kernel", ScheduleConfig{});
}

TEST(LowerGroup, ParamsAreUsedInputsThenOutputs) {
  auto g = ir::parseGraph(R"(graph main(%x: float32[1,3,8,8]) {
    %w = const float32[4,3,3,3] random(seed=7)
    %b = const float32[4] random(seed=8)
    %c = Conv(%x, %w, %b) {pads=[1,1,1,1]} #group=0
    %y = Relu(%c) #group=0
    return %y
  })");
  LoweredKernel k = lowerOnly(*g);
  ASSERT_EQ(k.args.size(), 4u);
  EXPECT_EQ(k.args[0]->name, "x");
  EXPECT_EQ(k.args[1]->name, "w");
  EXPECT_EQ(k.args[2]->name, "b");
  EXPECT_EQ(k.args[3]->name, "y");
  ASSERT_EQ(k.func.params.size(), 4u);
  EXPECT_EQ(k.func.params[3]->shape, (std::vector<int64_t>{1, 4, 8, 8}));
  EXPECT_EQ(k.func.name, "kernel");
}

TEST(LowerGroup, ScalarConstantsBecomeImmediates) {
  auto g = ir::parseGraph(R"(graph main(%x: float32[2,5]) {
    %c = const float32[] [1.5]
    %y = Add(%x, %c)
    return %y
  })");
  LoweredKernel k = lowerOnly(*g);
  ASSERT_EQ(k.args.size(), 2u);
  EXPECT_EQ(k.args[0]->name, "x");
  EXPECT_EQ(k.args[1]->name, "y");
  EXPECT_NE(printPrimFunc(k.func).find("1.5f"), std::string::npos) << printPrimFunc(k.func);
}

TEST(LowerGroup, ShapeInputsAreNotParams) {
  auto g = ir::parseGraph(R"(graph main(%x: float32[2,6]) {
    %s = const int64[2] [3, 4]
    %y = Reshape(%x, %s)
    return %y
  })");
  LoweredKernel k = lowerOnly(*g);
  ASSERT_EQ(k.args.size(), 2u);
  EXPECT_EQ(k.args[0]->name, "x");
}

TEST(LowerGroup, UnknownOpIsAnErrorNamingTheNode) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DataType::float32(), {4}});
  ir::Node* n = g.addNode("NoSuchOp", "mystery", {x}, {"y"});
  n->outputs[0]->type = {DataType::float32(), {4}};
  g.outputs().push_back(n->outputs[0]);
  try {
    lowerOnly(g);
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mystery"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("NoSuchOp"), std::string::npos) << e.what();
  }
}

// Three spatial dims: no compiled kernel; the runtime's direct convolution runs it.
TEST(LowerGroup, ThreeDimensionalConvRunsInTheRuntime) {
  auto g = ir::parseGraph(R"(graph main(%x: float32[1,2,4,4,4]) {
    %w = const float32[2,2,1,1,1] random(seed=1)
    %y = Conv(%x, %w)
    return %y
  })");
  LoweredKernel k = lowerOnly(*g);
  ASSERT_TRUE(k.runtimeOp.has_value());
  EXPECT_EQ(k.runtimeOp->op, "Conv");
}

TEST(LowerGroup, ElementwiseChainIsOneFlatLoop) {
  auto g = ir::parseGraph(R"(graph main(%x: float32[2,3,4], %z: float32[2,3,4]) {
    %a = Add(%x, %z) #group=0
    %y = Relu(%a) #group=0
    return %y
  })");
  std::string text = printPrimFunc(lowerOnly(*g).func);
  EXPECT_NE(text.find("vectorized for (i, 0, 24)"), std::string::npos) << text;
}

// Direct convolution by definition, in double.
Storage naiveConv(const Storage& x, const Storage& w, const Storage* b, int64_t n, int64_t ic,
                  int64_t h, int64_t wd, int64_t oc, int64_t kh, int64_t kw, int64_t groups,
                  int64_t stride, int64_t pad, int64_t dil, int64_t oh, int64_t ow) {
  Storage y(static_cast<size_t>(n * oc * oh * ow));
  int64_t icg = ic / groups, ocg = oc / groups;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t c = 0; c < ow; ++c) {
          double s = b ? (*b)[o] : 0;
          for (int64_t q = 0; q < icg; ++q)
            for (int64_t u = 0; u < kh; ++u)
              for (int64_t v = 0; v < kw; ++v) {
                int64_t ih = r * stride - pad + u * dil, iw = c * stride - pad + v * dil;
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                int64_t ci = (o / ocg) * icg + q;
                s += x[((i * ic + ci) * h + ih) * wd + iw] * w[((o * icg + q) * kh + u) * kw + v];
              }
          y[((i * oc + o) * oh + r) * ow + c] = s;
        }
  return y;
}

// Schedules to check besides the default: other vector widths, no parallel loops, and knobs that
// force the unpadded (clipped) convolution path and odd tile sizes.
struct Schedule {
  ScheduleConfig config;
  std::map<std::string, int64_t> knobs;
};

std::vector<Schedule> schedules() {
  ScheduleConfig avx2;
  avx2.target = TargetModel::avx2();
  ScheduleConfig serial;
  serial.target = TargetModel::scalar();
  serial.parallel = false;
  return {{ScheduleConfig{}, {}},
          {avx2, {{"pad_rows", 0}, {"oc_tile", 2}, {"ow_tile", 3}}},
          {serial, {{"oc_tiles_per_task", 2}, {"m_tile", 3}, {"n_tile", 5}, {"chunk", 7}}}};
}

TEST(LowerGroupNumeric, ConvWithBiasReluMatchesDefinition) {
  struct Case {
    int64_t ic, oc, groups, k, stride, pad, dil, h;
  };
  for (const Schedule& sched : schedules())
    for (Case c : {Case{3, 4, 1, 3, 1, 1, 1, 7}, Case{4, 6, 2, 3, 2, 1, 1, 9},
                   Case{4, 4, 4, 3, 1, 2, 2, 8}, Case{2, 5, 1, 1, 1, 0, 1, 5},
                   Case{2, 8, 1, 3, 1, 0, 1, 20}, Case{3, 8, 1, 5, 2, 2, 1, 23}}) {
      int64_t eff = (c.k - 1) * c.dil + 1;
      int64_t oh = (c.h + 2 * c.pad - eff) / c.stride + 1;
      std::string text =
          strCat("graph main(%x: float32[2,", c.ic, ",", c.h, ",", c.h, "]) {\n",
                 "  %w = const float32[", c.oc, ",", c.ic / c.groups, ",", c.k, ",", c.k,
                 "] random(seed=3)\n", "  %b = const float32[", c.oc, "] random(seed=4)\n",
                 "  %c = Conv(%x, %w, %b) {group=", c.groups, ", strides=[", c.stride, ",",
                 c.stride, "], pads=[", c.pad, ",", c.pad, ",", c.pad, ",", c.pad, "], dilations=[",
                 c.dil, ",", c.dil, "]} #group=0\n  %y = Relu(%c) #group=0\n  return %y\n}\n");
      auto g = ir::parseGraph(text);
      Storage x = randomStorage(static_cast<size_t>(2 * c.ic * c.h * c.h), 11);
      Storage w = testing::toStorage(*g->findValue("w")->constant);
      Storage b = testing::toStorage(*g->findValue("b")->constant);
      Storage want = naiveConv(x, w, &b, 2, c.ic, c.h, c.h, c.oc, c.k, c.k, c.groups, c.stride,
                               c.pad, c.dil, oh, oh);
      for (double& v : want) v = std::max(v, 0.0);
      expectNear(testing::runGraph(*g, {{"x", x}}, sched.config, sched.knobs)[0], want);
    }
}

TEST(LowerGroupNumeric, BroadcastDagMatchesDefinition) {
  auto g = ir::parseGraph(R"(graph main(%x: float32[2,3,4], %z: float32[3,1]) {
    %a = Mul(%x, %z) #group=0
    %s = Sigmoid(%a) #group=0
    %y = Sub(%s, %z) #group=0
    return %y
  })");
  Storage x = randomStorage(24, 1), z = randomStorage(3, 2);
  Storage want(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        double a = x[(i * 3 + j) * 4 + k] * z[j];
        want[(i * 3 + j) * 4 + k] = 1 / (1 + std::exp(-a)) - z[j];
      }
  expectNear(testing::runGraph(*g, {{"x", x}, {"z", z}})[0], want);
}

TEST(LowerGroupNumeric, GemmTransBWithBiasMatchesDefinition) {
  auto g = ir::parseGraph(R"(graph main(%a: float32[5,7]) {
    %b = const float32[3,7] random(seed=5)
    %c = const float32[3] random(seed=6)
    %g = Gemm(%a, %b, %c) {transB=1, alpha=0.5, beta=2.0} #group=0
    %y = Relu(%g) #group=0
    return %y
  })");
  Storage a = randomStorage(35, 3);
  Storage b = testing::toStorage(*g->findValue("b")->constant);
  Storage c = testing::toStorage(*g->findValue("c")->constant);
  Storage want(15);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 7; ++k) s += a[i * 7 + k] * b[j * 7 + k];
      want[i * 3 + j] = std::max(0.0, 0.5 * s + 2.0 * c[j]);
    }
  for (const Schedule& sched : schedules()) {
    expectNear(testing::runGraph(*g, {{"a", a}}, sched.config, sched.knobs)[0], want);
  }
}

TEST(LowerGroupNumeric, MatMulWithRaggedTilesMatchesDefinition) {
  auto g = ir::parseGraph(R"(graph main(%a: float32[6,37]) {
    %b = const float32[37,45] random(seed=5)
    %y = MatMul(%a, %b)
    return %y
  })");
  Storage a = randomStorage(size_t{6} * 37, 3);
  Storage b = testing::toStorage(*g->findValue("b")->constant);
  Storage want(size_t{6} * 45);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 45; ++j) {
      double s = 0;
      for (int k = 0; k < 37; ++k) s += a[i * 37 + k] * b[k * 45 + j];
      want[i * 45 + j] = s;
    }
  for (const Schedule& sched : schedules()) {
    expectNear(testing::runGraph(*g, {{"a", a}}, sched.config, sched.knobs)[0], want);
  }
}

TEST(LowerGroupNumeric, SoftmaxOverMiddleAxisMatchesDefinition) {
  auto g = ir::parseGraph(R"(graph main(%x: float32[2,3,5]) {
    %y = Softmax(%x) {axis=1}
    return %y
  })");
  Storage x = randomStorage(30, 4);
  Storage want(30);
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 5; ++k) {
      double mx = -1e30, sum = 0;
      for (int j = 0; j < 3; ++j) mx = std::max(mx, x[(i * 3 + j) * 5 + k]);
      for (int j = 0; j < 3; ++j) sum += std::exp(x[(i * 3 + j) * 5 + k] - mx);
      for (int j = 0; j < 3; ++j)
        want[(i * 3 + j) * 5 + k] = std::exp(x[(i * 3 + j) * 5 + k] - mx) / sum;
    }
  expectNear(testing::runGraph(*g, {{"x", x}})[0], want);
}

}  // namespace
}  // namespace kiln::kernel

namespace kiln::kernel {
namespace {

// Ops that never reach lowering: the importer and fold-constants turn them into constants.
bool compileTimeOnly(const std::string& op) { return op == "Constant"; }

TEST(LowerGroup, EveryRegisteredOpHasAKernelOrRunsInTheRuntime) {
  std::vector<std::string> lowered = loweredOps();
  for (const std::string& op : ir::registeredOps()) {
    if (compileTimeOnly(op) || op.rfind("kiln.", 0) == 0) continue;
    EXPECT_TRUE(std::binary_search(lowered.begin(), lowered.end(), op) ||
                runtime::findRuntimeOp(op) != nullptr)
        << op << " has no kernel and the runtime does not execute it";
  }
}

TEST(LowerGroup, EveryOpTakingRunTimeShapesRunsInTheRuntime) {
  for (const std::string& op : ir::registeredOps()) {
    if (ir::findOp(op)->inferRunTime) {
      EXPECT_NE(runtime::findRuntimeOp(op), nullptr) << op;
    }
  }
}

}  // namespace
}  // namespace kiln::kernel
