// A convolutional network on a batch sized in a symbol: its convolutions, pools and normalisations
// compute per sample, so each kernel is the one-sample kernel (the same workload, blocked layout
// and knobs as a batch-1 compile) inside a loop over the samples. Every batch size within the
// bounds gives what the batch-1 model gives sample by sample, at every optimisation level, without
// allocating inside run(); a batch beyond the bound is refused naming it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "allocation_counter.h"
#include "kiln/driver/compile.h"
#include "kiln/ir/parser.h"
#include "kiln/runtime/artifact.h"
#include "kiln/support/file.h"
#include "kiln/support/json.h"
#include "kiln/support/split.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

// Conv + BatchNormalization + Relu, MaxPool, a depthwise Conv with a residual Add, AveragePool,
// GlobalAveragePool, Flatten, MatMul and Add: BATCH stands for the batch dim, DIMS for the bounds.
const char* kNet = R"(graph main(%x: float32[BATCH,3,12,12]) DIMS {
  %w1 = const float32[16,3,3,3] random(seed=1)
  %b1 = const float32[16] random(seed=2)
  %gamma = const float32[16] random(seed=3)
  %beta = const float32[16] random(seed=4)
  %mean = const float32[16] random(seed=5)
  %var = const float32[16] random(seed=6, low=0.5, high=2)
  %w2 = const float32[16,1,3,3] random(seed=7)
  %wf = const float32[16,10] random(seed=8)
  %bf = const float32[10] random(seed=9)
  %c1 = Conv(%x, %w1, %b1) {pads=[1,1,1,1]} : float32[BATCH,16,12,12]
  %n1 = BatchNormalization(%c1, %gamma, %beta, %mean, %var) : float32[BATCH,16,12,12]
  %r1 = Relu(%n1) : float32[BATCH,16,12,12]
  %p1 = MaxPool(%r1) {kernel_shape=[2,2], strides=[2,2]} : float32[BATCH,16,6,6]
  %c2 = Conv(%p1, %w2) {group=16, pads=[1,1,1,1]} : float32[BATCH,16,6,6]
  %a = Add(%c2, %p1) : float32[BATCH,16,6,6]
  %ap = AveragePool(%a) {kernel_shape=[3,3]} : float32[BATCH,16,4,4]
  %g = GlobalAveragePool(%ap) : float32[BATCH,16,1,1]
  %f = Flatten(%g) {axis=1} : float32[BATCH,16]
  %m = MatMul(%f, %wf) : float32[BATCH,10]
  %y = Add(%m, %bf) : float32[BATCH,10]
  return %y
})";

std::string netText(const std::string& batch, const std::string& dims) {
  std::string text = kNet;
  for (auto [from, to] : {std::pair<std::string, std::string>{"BATCH", batch}, {"DIMS", dims}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
      text.replace(at, from.size(), to);
      at += to.size();
    }
  }
  return text;
}

const std::string kBatched = netText("batch", "dims \"1<=batch<=5\"");
const std::string kOneSample = netText("1", "");

runtime::Module compileAt(const std::string& text, const std::string& path, int optLevel) {
  driver::CompileOptions options;
  options.optLevel = optLevel;
  driver::compileGraph(*ir::parseGraph(text), path, options);
  return runtime::loadModule(path)["default"](runtime::Device::cpu()).asModule();
}

// Sample n of the batch-1 model, run on each sample of X (BATCH samples) in turn.
std::vector<float> sampleBySample(runtime::Module& one, const std::vector<float>& x,
                                  int64_t batch) {
  const size_t in = size_t{3} * 12 * 12;
  std::vector<float> y;
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<float> xn(x.begin() + static_cast<ptrdiff_t>(n * in),
                          x.begin() + static_cast<ptrdiff_t>((n + 1) * in));
    one["set_input"]("x", toArray(xn, {1, 3, 12, 12}));
    one["run"]();
    std::vector<float> yn = toVector(one["get_output"](0).asNDArray());
    y.insert(y.end(), yn.begin(), yn.end());
  }
  return y;
}

class SymbolicBatch : public ::testing::TestWithParam<int> {};

TEST_P(SymbolicBatch, EveryBatchSizeGivesTheOneSampleModelsResults) {
  std::string dir = scratchDir();
  runtime::Module batched = compileAt(kBatched, dir + "/batched.so", GetParam());
  runtime::Module one = compileAt(kOneSample, dir + "/one.so", GetParam());
  for (int64_t batch : {1, 5, 2, 3}) {
    std::vector<float> x =
        randomVector(static_cast<size_t>(batch * 3 * 12 * 12), static_cast<uint32_t>(batch));
    batched["set_input"]("x", toArray(x, {batch, 3, 12, 12}));
    batched["run"]();
    runtime::NDArray y = batched["get_output"](0).asNDArray();
    ASSERT_EQ(y.shape(), (runtime::Shape{batch, 10}));
    EXPECT_LT(relativeError(toVector(y), sampleBySample(one, x, batch)), 1e-5) << "batch " << batch;
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, SymbolicBatch, ::testing::Values(1, 3),
                         [](const auto& info) { return "O" + std::to_string(info.param); });

TEST(SymbolicBatchRun, AllocatesNothingAtAnyBatchSize) {
  runtime::Module ex = compileAt(kBatched, scratchDir() + "/batched.so", 3);
  ex["set_input"]("x", toArray(randomVector(size_t{5} * 3 * 12 * 12, 1), {5, 3, 12, 12}));
  ex["run"]();  // warm up: the pool and everything lazy exist now
  for (int64_t batch : {1, 4, 5, 2}) {
    ex["set_input"]("x", toArray(randomVector(static_cast<size_t>(batch * 3 * 12 * 12), 2),
                                 {batch, 3, 12, 12}));
    runtime::PackedFunc run = ex["run"];
    long before = allocationCount();
    run.callPacked(runtime::Args{});
    EXPECT_EQ(allocationCount(), before) << "batch " << batch;
  }
}

TEST(SymbolicBatchRun, ABatchBeyondTheBoundIsRefusedNamingIt) {
  runtime::Module ex = compileAt(kBatched, scratchDir() + "/batched.so", 3);
  std::string error = errorOf([&] {
    ex["set_input"]("x", toArray(randomVector(size_t{6} * 3 * 12 * 12, 1), {6, 3, 12, 12}));
  });
  for (const char* part : {"'batch'", "6", "1<=batch<=5"}) {
    EXPECT_NE(error.find(part), std::string::npos) << part << " is not in: " << error;
  }
}

// The workloads and knobs (--dump-ir's schedules.json) of the batched library are the batch-1
// library's: the symbol enters the loop over the samples, not the kernels' tiles. Every kernel is
// compiled (none runs in the runtime) and x is planned at the bound.
TEST(SymbolicBatchRun, KernelsAreTheOneSampleKernelsInALoop) {
  std::string dir = scratchDir();
  auto schedules = [&](const std::string& text, const std::string& name) {
    driver::CompileOptions options;
    options.dumpIrDir = dir + "/" + name;
    driver::compileGraph(*ir::parseGraph(text), dir + "/" + name + ".so", options);
    std::set<std::string> lines;
    for (const std::string& line :
         splitOn(readTextFile(options.dumpIrDir + "/schedules.json"), '\n')) {
      if (!line.empty()) lines.insert(line);
    }
    return lines;
  };
  std::set<std::string> batched = schedules(kBatched, "batched");
  std::set<std::string> one = schedules(kOneSample, "one");
  EXPECT_GE(batched.size(), 3u);
  for (const std::string& line : batched) {
    if (line.find("Conv") == std::string::npos && line.find("Pool") == std::string::npos) continue;
    EXPECT_EQ(one.count(line), 1u) << line << " is not a batch-1 schedule";
  }
  runtime::ArtifactFile file = runtime::readArtifactFile(dir + "/batched.so");
  const Json& meta = file.artifact.models.at(0).metadata;
  for (const Json& k : meta.at("kernels").asArray()) {
    EXPECT_FALSE(k.contains("runtime_op")) << k.dump();
  }
  for (const Json& t : meta.at("tensors").asArray()) {
    if (t.at("name").asString() == "x") {
      EXPECT_EQ(t.at("capacity").dump(), "[5,3,12,12]");
    }
  }
}

}  // namespace
}  // namespace kiln::test
