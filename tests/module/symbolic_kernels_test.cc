// Kernels compiled over bounded symbolic dims: the pointwise and reshaping nodes of a model whose
// sequence length is a symbol become generated kernels that read the symbol's value at run time
// (not run-time ops), their tensors are planned at the bounds, and running at any size within the
// bounds, growing or shrinking, gives the right numbers without allocating inside run().
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "allocation_counter.h"
#include "kiln/driver/compile.h"
#include "kiln/ir/parser.h"
#include "kiln/runtime/artifact.h"
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

}  // namespace
}  // namespace kiln::test
