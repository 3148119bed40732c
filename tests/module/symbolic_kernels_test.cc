// Kernels compiled over bounded symbolic dims: the pointwise and reshaping nodes of a model whose
// sequence length is a symbol become generated kernels that read the symbol's value at run time
// (not run-time ops), their tensors are planned at the bounds, and running at any size within the
// bounds, growing or shrinking, gives the right numbers without allocating inside run().
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "allocation_counter.h"
#include "kiln/driver/compile.h"
#include "kiln/ir/parser.h"
#include "kiln/opdef/dim_bounds.h"
#include "kiln/runtime/artifact.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/support/json.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

// z = sigmoid(square(Reshape(relu(x + b), [seq, 16]))), the target shape computed from x's own
// shape the way exporters write it.
const char* kModel = R"(graph main(%x: float32[2,seq,8], %b: float32[8]) dims "1<=seq<=32" {
  %i1 = const int64[] [1]
  %ax = const int64[1] [0]
  %m1 = const int64[1] [-1]
  %a = Add(%x, %b) : float32[2,seq,8]
  %r = Relu(%a) : float32[2,seq,8]
  %s = Shape(%x) : int64[3]
  %n = Gather(%s, %i1) {axis=0} : int64[]
  %n1 = Unsqueeze(%n, %ax) : int64[1]
  %shape = Concat(%n1, %m1) {axis=0} : int64[2]
  %f = Reshape(%r, %shape) : float32[seq,16]
  %y = Mul(%f, %f) : float32[seq,16]
  %z = Sigmoid(%y) : float32[seq,16]
  return %z
})";

// The model's result for x of shape [2, seq, 8], row-major: x's flat order is kept by the reshape.
std::vector<float> reference(const std::vector<float>& x, const std::vector<float>& b) {
  std::vector<float> z(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double r = std::max(0.0, static_cast<double>(x[i]) + b[i % 8]);
    z[i] = static_cast<float>(1.0 / (1.0 + std::exp(-r * r)));
  }
  return z;
}

class SymbolicKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    ex_ = executorOfText(kModel, "sym");
    ex_["set_input"]("b", toArray(b_, {8}));
  }
  // Sets x to seeded values of length SEQ and returns them.
  std::vector<float> setX(int64_t seq) {
    std::vector<float> x = randomVector(static_cast<size_t>(2 * seq * 8), static_cast<int>(seq));
    ex_["set_input"]("x", toArray(x, {2, seq, 8}));
    return x;
  }
  std::vector<float> b_ = randomVector(8, 99);
  runtime::Module ex_;
};

TEST_F(SymbolicKernels, EverySizeWithinTheBoundsGivesTheRightNumbers) {
  for (int64_t seq : {1, 9, 32, 3}) {
    std::vector<float> x = setX(seq);
    ex_["run"]();
    runtime::NDArray z = ex_["get_output"](0).asNDArray();
    ASSERT_EQ(z.shape(), (runtime::Shape{seq, 16}));
    EXPECT_LT(relativeError(toVector(z), reference(x, b_)), 1e-6) << "seq " << seq;
  }
}

TEST_F(SymbolicKernels, RunAllocatesNothingAtAnySize) {
  setX(32);
  ex_["run"]();  // warm up: the pool and everything lazy exist now
  for (int64_t seq : {1, 17, 32, 2}) {
    std::vector<float> x = setX(seq);
    runtime::PackedFunc run = ex_["run"];
    long before = allocationCount();
    run.callPacked(runtime::Args{});
    EXPECT_EQ(allocationCount(), before) << "seq " << seq;
    EXPECT_LT(relativeError(toVector(ex_["get_output"](0).asNDArray()), reference(x, b_)), 1e-6);
  }
}

// Every node is a generated kernel, the shape computation (Shape, Gather, Unsqueeze, Concat)
// included: its sizes are written from the symbols.
TEST_F(SymbolicKernels, EveryNodeIsACompiledKernelPlannedAtTheBounds) {
  std::string path = scratchDir() + "/meta.so";
  driver::compileGraph(*ir::parseGraph(kModel), path, {});
  runtime::ArtifactFile file = runtime::readArtifactFile(path);
  const Json& meta = file.artifact.models.at(0).metadata;
  std::string ops;
  for (const Json& k : meta.at("kernels").asArray()) {
    EXPECT_FALSE(k.contains("runtime_op")) << k.dump();
    EXPECT_TRUE(k.contains("reads_symbols") && k.at("reads_symbols").asBool()) << k.dump();
    ops += k.at("ops").dump();
  }
  for (const char* op : {"Shape", "Reshape", "Relu", "Sigmoid"}) {
    EXPECT_NE(ops.find(op), std::string::npos) << op << " is not among " << ops;
  }
  // x, relu(x + b) and z are planned at their bounds.
  std::map<std::string, std::string> capacity;
  for (const Json& t : meta.at("tensors").asArray()) {
    if (!t.contains("capacity")) continue;
    capacity[t.at("name").asString()] = t.at("capacity").dump();
    EXPECT_GE(t.at("storage").asInt(), 0) << t.dump();
  }
  EXPECT_EQ(capacity["x"], "[2,32,8]");
  EXPECT_EQ(capacity["r"], "[2,32,8]");
  EXPECT_EQ(capacity["z"], "[32,16]");
}

// A two-layer perceptron over a sequence: both MatMuls are packed-weight gemm kernels whose rows
// are the symbol, the bias and ReLU their epilogue. 40 rows and 19 columns leave row and column
// tails for every tile size.
const char* kMlp = R"(graph main(%x: float32[1,seq,24]) dims "1<=seq<=40" {
  %w1 = const float32[24,40] random(seed=1)
  %b1 = const float32[40] random(seed=2)
  %w2 = const float32[40,19] random(seed=3)
  %h = MatMul(%x, %w1) : float32[1,seq,40]
  %hb = Add(%h, %b1) : float32[1,seq,40]
  %r = Relu(%hb) : float32[1,seq,40]
  %y = MatMul(%r, %w2) : float32[1,seq,19]
  return %y
})";

std::vector<float> constantOf(const ir::Graph& g, const std::string& name) {
  return toVector(*g.findValue(name)->constant);
}

// relu(x W1 + b1) W2 for SEQ rows, in double.
std::vector<float> referenceMlp(const ir::Graph& g, const std::vector<float>& x, int64_t seq) {
  std::vector<float> w1 = constantOf(g, "w1"), b1 = constantOf(g, "b1"), w2 = constantOf(g, "w2");
  std::vector<float> y(static_cast<size_t>(seq * 19));
  for (int64_t r = 0; r < seq; ++r) {
    std::vector<double> h(40);
    for (size_t j = 0; j < 40; ++j) {
      double acc = b1[j];
      for (size_t k = 0; k < 24; ++k) acc += double{x[r * 24 + k]} * w1[k * 40 + j];
      h[j] = std::max(0.0, acc);
    }
    for (size_t j = 0; j < 19; ++j) {
      double acc = 0;
      for (size_t k = 0; k < 40; ++k) acc += h[k] * w2[k * 19 + j];
      y[r * 19 + j] = static_cast<float>(acc);
    }
  }
  return y;
}

// Every size from 1 to the bound through one executor of the library at PATH.
void expectEveryRowCount(const std::string& path, const ir::Graph& g) {
  runtime::Module ex = runtime::loadModule(path)["default"](runtime::Device::cpu()).asModule();
  for (int64_t seq = 1; seq <= 40; ++seq) {
    std::vector<float> x = randomVector(static_cast<size_t>(seq * 24), static_cast<int>(seq));
    ex["set_input"]("x", toArray(x, {1, seq, 24}));
    ex["run"]();
    runtime::NDArray y = ex["get_output"](0).asNDArray();
    ASSERT_EQ(y.shape(), (runtime::Shape{1, seq, 19}));
    EXPECT_LT(relativeError(toVector(y), referenceMlp(g, x, seq)), 1e-5) << "seq " << seq;
  }
}

TEST(SymbolicMatmul, PackedGemmKernelsRunEveryRowCountWithinTheBounds) {
  std::string dir = scratchDir();
  std::unique_ptr<ir::Graph> g = ir::parseGraph(kMlp);
  std::unique_ptr<ir::Graph> compiled = ir::parseGraph(kMlp);
  driver::CompileOptions options;
  options.dumpIrDir = dir + "/ir";
  driver::compileGraph(*compiled, dir + "/mlp.so", options);
  runtime::ArtifactFile file = runtime::readArtifactFile(dir + "/mlp.so");
  int gemms = 0;
  for (const Json& k : file.artifact.models.at(0).metadata.at("kernels").asArray()) {
    EXPECT_FALSE(k.contains("runtime_op")) << k.dump();
    gemms += k.at("ops").dump().find("kiln.MatMulPacked") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(gemms, 2);
  expectEveryRowCount(dir + "/mlp.so", *g);

  // Tiles of 5 rows, one tile per task, K in blocks of 7: short tiles of 1 to 4 rows in any
  // task, partial sums kept between K blocks.
  std::string schedules;
  std::istringstream lines(readTextFile(dir + "/ir/schedules.json"));
  for (std::string line; std::getline(lines, line);) {
    Json r = Json::parse(line);
    if (r.at("workload").asString().rfind("kiln.MatMulPacked", 0) != 0) continue;
    schedules +=
        strCat(R"({"workload": )", r.at("workload").dump(),
               R"(, "knobs": {"mr": 5, "nv": 1, "k_block": 7, "tiles_per_task": 1}})", "\n");
  }
  writeFileAtomic(dir + "/tiles.jsonl", schedules);
  options.dumpIrDir = dir + "/tiled_ir";
  options.schedulePath = dir + "/tiles.jsonl";
  compiled = ir::parseGraph(kMlp);
  driver::compileGraph(*compiled, dir + "/tiled.so", options);
  int tiled = 0;
  lines = std::istringstream(readTextFile(dir + "/tiled_ir/schedules.json"));
  for (std::string line; std::getline(lines, line);) {
    Json knobs = Json::parse(line).at("knobs");
    tiled +=
        knobs.contains("k_block") && knobs.at("mr").asInt() == 5 && knobs.at("k_block").asInt() == 7
            ? 1
            : 0;
  }
  EXPECT_EQ(tiled, 2) << "the schedule file did not reach both gemms";
  expectEveryRowCount(dir + "/tiled.so", *g);
}

// A cache read back the way decoders cut it: the last SEQ rows of [past; x] (a Slice whose start
// is the cache length), split in two halves of the features, one half offset by the positions
// past .. past + seq - 1 (Range) and the other scaled by a row broadcast over them (Expand).
const char* kCache =
    R"(graph main(%x: float32[1,seq,6], %past: float32[1,past,6]) dims "1<=seq<=8, past<=8" {
  %i1 = const int64[] [1]
  %ax = const int64[1] [1]
  %a0 = const int64[1] [0]
  %one = const int64[] [1]
  %w = const float32[1,1,3] [0.5, -2, 3]
  %c = Concat(%past, %x) {axis=1} : float32[1,past+seq,6]
  %ps = Shape(%past) : int64[3]
  %p = Gather(%ps, %i1) {axis=0} : int64[]
  %cs = Shape(%c) : int64[3]
  %t = Gather(%cs, %i1) {axis=0} : int64[]
  %p1 = Unsqueeze(%p, %a0) : int64[1]
  %t1 = Unsqueeze(%t, %a0) : int64[1]
  %last = Slice(%c, %p1, %t1, %ax) : float32[1,seq,6]
  %a, %b = Split(%last) {axis=2, num_outputs=2} : float32[1,seq,3], float32[1,seq,3]
  %pos = Range(%p, %t, %one) : int64[seq]
  %posf = Cast(%pos) {to=1} : float32[seq]
  %pos3 = Unsqueeze(%posf, %ax) : float32[seq,1]
  %y = Add(%a, %pos3) : float32[1,seq,3]
  %shape = Shape(%b) : int64[3]
  %we = Expand(%w, %shape) : float32[1,seq,3]
  %z = Mul(%b, %we) : float32[1,seq,3]
  return %y, %z
})";

TEST(SymbolicCache, ACacheCutBySizesInSymbolsIsCompiledAndRightAtEverySize) {
  std::string path = scratchDir() + "/cache.so";
  driver::compileGraph(*ir::parseGraph(kCache), path, {});
  runtime::ArtifactFile file = runtime::readArtifactFile(path);
  for (const Json& k : file.artifact.models.at(0).metadata.at("kernels").asArray()) {
    EXPECT_FALSE(k.contains("runtime_op")) << k.dump();
  }
  runtime::Module ex = runtime::loadModule(path)["default"](runtime::Device::cpu()).asModule();
  const float w[3] = {0.5f, -2, 3};
  for (auto [past, seq] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 5}, {5, 1}, {8, 8}, {2, 3}}) {
    std::vector<float> x = randomVector(static_cast<size_t>(seq * 6), 1);
    std::vector<float> cache = randomVector(static_cast<size_t>(past * 6), 2);
    ex["set_input"]("x", toArray(x, {1, seq, 6}));
    ex["set_input"]("past", toArray(cache, {1, past, 6}));
    ex["run"]();
    std::vector<float> y = toVector(ex["get_output"](0).asNDArray());
    std::vector<float> z = toVector(ex["get_output"](1).asNDArray());
    ASSERT_EQ(y.size(), static_cast<size_t>(seq * 3));
    ASSERT_EQ(z.size(), static_cast<size_t>(seq * 3));
    for (int64_t r = 0; r < seq; ++r) {  // the last SEQ rows of [past; x] are x's rows
      for (int64_t j = 0; j < 3; ++j) {
        EXPECT_EQ(y[r * 3 + j], x[r * 6 + j] + static_cast<float>(past + r)) << past << "," << seq;
        EXPECT_EQ(z[r * 3 + j], x[r * 6 + 3 + j] * w[j]) << past << "," << seq;
      }
    }
  }
}

// A GPT-2 block exported with its cache: after one warm-up run, a prompt and decode steps of
// any length within the bounds allocate nothing inside run().
TEST(SymbolicDecoder, StepsAllocateNothingInsideRun) {
  std::string dir = scratchDir();
  std::string onnx = dir + "/gpt2.onnx";
  std::string cmd =
      strCat("/usr/bin/python3 ", KILN_SOURCE_DIR, "/tests/e2e/decoder_models.py gpt2 ", onnx,
             " --layers 1 --d-model 32 --heads 2 --vocab 64 > /dev/null 2>&1");
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  driver::CompileOptions options;
  options.dimBounds = opdef::parseDimBounds("1<=seq<=16, past<=16");
  driver::compileOnnxFile(onnx, dir + "/gpt2.so", options);
  runtime::Module ex =
      runtime::loadModule(dir + "/gpt2.so")["default"](runtime::Device::cpu()).asModule();
  auto setStep = [&](int64_t seq, int64_t past) {
    std::vector<int64_t> ids(static_cast<size_t>(seq), 3);
    ex["set_input"]("input_ids", runtime::NDArray::fromBytes({1, seq}, runtime::DataType::int64(),
                                                             ids.data(), ids.size() * 8));
    for (const char* name : {"past_key_values.0.key", "past_key_values.0.value"}) {
      ex["set_input"](
          name, toArray(randomVector(static_cast<size_t>(2 * past * 16), 4), {1, 2, past, 16}));
    }
  };
  setStep(16, 0);
  ex["run"]();
  runtime::PackedFunc run = ex["run"];
  for (auto [seq, past] :
       std::vector<std::pair<int64_t, int64_t>>{{5, 0}, {1, 5}, {1, 15}, {3, 2}}) {
    setStep(seq, past);
    long before = allocationCount();
    run.callPacked(runtime::Args{});
    EXPECT_EQ(allocationCount(), before) << "seq " << seq << ", past " << past;
    EXPECT_EQ(ex["get_output"](0).asNDArray().shape(), (runtime::Shape{1, seq, 64}));
  }
}

}  // namespace
}  // namespace kiln::test
