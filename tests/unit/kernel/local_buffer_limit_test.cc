// Kernels must never allocate heap memory at run time: every local buffer of every lowered kernel
// stays within kMaxLocalBufferBytes (and all of a kernel's within kMaxLocalBytesPerKernel), even
// for very wide rows, many channels and odd knob values; lowerGroup reports a violation as a bug.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "kiln/ir/fused_group.h"
#include "kiln/ir/parser.h"
#include "kiln/kernel/lower.h"
#include "kiln/runtime/ndarray.h"
#include "kiln/support/error.h"
#include "local_buffer_usage.h"

namespace kiln::kernel {

using namespace tir;  // NOLINT(google-build-using-namespace)
namespace {

using testing::localBufferUsage;
using testing::localBufferViolation;

constexpr int64_t kHuge = int64_t{1} << 40;

// Lowers every group of G (with KNOBS applied to each kernel) and checks each kernel's buffers.
void expectWithinBudget(const ir::Graph& g, const std::map<std::string, int64_t>& knobs = {}) {
  int k = 0;
  for (const ir::FusedGroup& group : ir::collectGroups(g)) {
    std::string symbol = strCat("k", k++, "_", group.name);
    ScheduleConfig config;
    for (const auto& [name, value] : knobs) config.knobs["*"][name] = value;
    LoweredKernel kernel = lowerGroup(group, symbol, config);
    EXPECT_EQ(localBufferViolation(kernel.func), "");
    testing::LocalBufferUsage u = localBufferUsage(kernel.func);
    EXPECT_LE(u.largestBytes, kMaxLocalBufferBytes) << symbol << " " << u.largestName;
    EXPECT_LE(u.totalBytes, kMaxLocalBytesPerKernel) << symbol;
  }
}

void expectWithinBudget(const std::string& text, const std::map<std::string, int64_t>& knobs = {}) {
  SCOPED_TRACE(text);
  expectWithinBudget(*ir::parseGraph(text), knobs);
}

TEST(LocalBufferLimit, TheLimitsAreTheAgreedOnes) {
  EXPECT_EQ(kMaxLocalBufferBytes, 128 * 1024);
  EXPECT_EQ(kMaxLocalBytesPerKernel, 192 * 1024);
}

TEST(LocalBufferLimit, CheckRejectsAnOversizedBufferNamingTheKernel) {
  Buffer out = makeBuffer("out", DataType::float32(), {4});
  auto kernelWith = [&](const std::vector<Buffer>& locals) {
    Stmt body = store(out, intImm(0), floatImm(1.0));
    for (const Buffer& b : locals) body = allocate(b, body);
    return PrimFunc{"wide_kernel", {out}, body};
  };
  int64_t limitFloats = kMaxLocalBufferBytes / 4;
  EXPECT_NO_THROW(
      checkLocalBuffers(kernelWith({makeBuffer("fits", DataType::float32(), {limitFloats})})));
  try {
    checkLocalBuffers(kernelWith({makeBuffer("row", DataType::float32(), {limitFloats + 1})}));
    FAIL() << "an oversized local buffer was accepted";
  } catch (const InternalError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("wide_kernel"), std::string::npos) << msg;
    EXPECT_NE(msg.find("row"), std::string::npos) << msg;
  }
  // Two buffers each within the limit but together over the per-kernel budget.
  std::vector<Buffer> two{makeBuffer("a", DataType::float32(), {limitFloats}),
                          makeBuffer("b", DataType::float64(), {limitFloats / 2})};
  try {
    checkLocalBuffers(kernelWith(two));
    FAIL() << "local buffers over the per-kernel budget were accepted";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("wide_kernel"), std::string::npos) << e.what();
  }
}

TEST(LocalBufferLimit, WidePoolsAreTiled) {
  expectWithinBudget(R"(graph main(%x: float32[1,2,100000]) {
    %y = MaxPool(%x) {kernel_shape=[3], pads=[1,1]}
    return %y
  })");
  expectWithinBudget(R"(graph main(%x: float32[1,2,100000]) {
    %y = AveragePool(%x) {kernel_shape=[4], strides=[2], pads=[1,2], count_include_pad=1}
    return %y
  })");
  expectWithinBudget(R"(graph main(%x: float32[1,3,8,50000]) {
    %y = MaxPool(%x) {kernel_shape=[3,3], pads=[1,1,1,1]}
    %z = AveragePool(%x) {kernel_shape=[2,3], strides=[2,1], pads=[0,1,0,1]}
    return %y, %z
  })");
  expectWithinBudget(R"(graph main(%x: float64[1,1,2,40000]) {
    %y = MaxPool(%x) {kernel_shape=[1,3], pads=[0,1,0,1]}
    return %y
  })",
                     {{"ow_tile", kHuge}});
}

TEST(LocalBufferLimit, ConvWithManyChannelsAndWideRows) {
  for (const char* attrs :
       {"pads=[1,1,1,1]", "pads=[1,1,1,1], strides=[2,2]", "pads=[0,40,0,40]"}) {
    expectWithinBudget(strCat(R"(graph main(%x: float32[1,512,4,600]) {
      %w = const float32[8,512,3,3] random(seed=1)
      %y = Conv(%x, %w) {)",
                              attrs, R"(}
      return %y
    })"));
  }
  expectWithinBudget(R"(graph main(%x: float32[1,64,8,3000]) {
    %w = const float32[64,64,3,3] random(seed=2)
    %y = Conv(%x, %w) {pads=[1,1,1,1]}
    return %y
  })",
                     {{"oc_tile", kHuge}, {"ow_tile", kHuge}, {"oc_tiles_per_task", kHuge}});
}

TEST(LocalBufferLimit, WideConvTranspose) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DataType::float32(), {1, 2, 40000}});
  runtime::NDArray w = runtime::NDArray::empty({2, 3, 3}, DataType::float32());
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = 0.5f;
  ir::Attrs attrs;
  attrs.set("strides", std::vector<int64_t>{2});
  ir::Node* n = g.addNode("ConvTranspose", "deconv", {x, g.addConstant("w", w)}, {"y"}, attrs);
  n->outputs[0]->type = {DataType::float32(), {1, 3, 80001}};
  g.outputs().push_back(n->outputs[0]);
  expectWithinBudget(g);
  expectWithinBudget(g, {{"ow_tile", kHuge}});
}

TEST(LocalBufferLimit, TileKnobsCannotOutgrowTheBudget) {
  expectWithinBudget(R"(graph main(%x: float32[2,64,100000]) {
    %y = Softmax(%x) {axis=1}
    return %y
  })",
                     {{"inner_tile", kHuge}});
  expectWithinBudget(R"(graph main(%x: float32[2,64,100000]) {
    %y = ReduceMean(%x) {axes=[1]}
    return %y
  })",
                     {{"inner_tile", kHuge}});
  expectWithinBudget(R"(graph main(%a: float32[256,512]) {
    %b = const float32[512,4096] random(seed=3)
    %y = MatMul(%a, %b)
    return %y
  })",
                     {{"m_tile", kHuge}, {"n_tile", kHuge}, {"n_group", kHuge}});
  expectWithinBudget(R"(graph main(%a: float32[256,512]) {
    %b = const float32[4096,512] random(seed=4)
    %y = Gemm(%a, %b) {transB=1}
    return %y
  })",
                     {{"m_tile", kHuge}, {"n_tile", kHuge}});
}

}  // namespace
}  // namespace kiln::kernel
