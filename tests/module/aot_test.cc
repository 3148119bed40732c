// The AOT executor: the same interface and the same results as the graph executor, one generated
// entry call per run.
#include <gtest/gtest.h>

#include "kiln/driver/compile.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/shared_library.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::DataType;
using runtime::Device;
using runtime::Module;
using runtime::NDArray;

Module compileMlp(const Mlp& m, const std::string& path, const std::string& executor,
                  const std::string& params = "embedded") {
  auto g = buildMlp(m, "");
  driver::CompileOptions options;
  options.executor = executor;
  options.params = params;
  driver::compileGraph(*g, path, options);
  return runtime::loadModule(path);
}

std::vector<float> run(const Module& ex, const Mlp& m, const std::vector<float>& x) {
  ex["set_input"]("x", toArray(x, {m.batch, m.in}));
  ex["run"]();
  return toVector(ex["get_output"](0).asNDArray());
}

TEST(Aot, SameInterfaceAndSameOutputsAsTheGraphExecutor) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(3, 40, 72, 9, 4);
  Module graph = compileMlp(m, dir + "/graph.so", "graph")["default"](Device::cpu()).asModule();
  Module lib = compileMlp(m, dir + "/aot.so", "aot");
  Module aot = lib["default"](Device::cpu()).asModule();
  EXPECT_STREQ(aot.typeKey(), "aot_executor");
  EXPECT_EQ(aot["get_num_inputs"]().asInt(), 1);  // never the weights
  EXPECT_EQ(aot["get_num_outputs"]().asInt(), 1);
  EXPECT_EQ(aot["get_input_index"]("x").asInt(), 0);
  EXPECT_EQ(aot["get_input_info"]().asJson().dump(), graph["get_input_info"]().asJson().dump());
  EXPECT_EQ(aot["get_output_info"]().asJson().dump(), graph["get_output_info"]().asJson().dump());
  for (uint32_t seed : {1u, 2u}) {
    std::vector<float> x = randomVector(static_cast<size_t>(m.batch * m.in), seed);
    std::vector<float> a = run(aot, m, x);
    EXPECT_EQ(a, run(graph, m, x));
    EXPECT_LT(relativeError(a, referenceMlp(m, x)), 1e-5);
  }
  // The entry is one symbol per model, and inspect-level metadata names it.
  runtime::ArtifactFile file = runtime::readArtifactFile(dir + "/aot.so");
  const runtime::ArtifactModel& model = file.artifact.models.at(0);
  EXPECT_EQ(model.executor, "aot");
  EXPECT_EQ(model.metadata.at("entry").asString(), "kiln_default_run");
  EXPECT_NE(runtime::SharedLibrary(dir + "/aot.so").findSymbol("kiln_default_run"), nullptr);
  std::string msg = errorOf([&] { aot["set_input"]("x", toArray({1, 2}, {1, 2})); });
  EXPECT_NE(msg.find("expected float32[3,40], got float32[1,2]"), std::string::npos) << msg;
}

TEST(Aot, ZeroCopyWeightsFilesAndSharedFactories) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(2, 16, 24, 5, 8);
  Module lib = compileMlp(m, dir + "/aot.so", "aot", "external");
  Module factory = lib["get_factory"]("default").asModule();
  std::string msg = errorOf([&] { factory["create"](Device::cpu()).asModule()["run"](); });
  EXPECT_NE(msg.find("parameters not loaded"), std::string::npos) << msg;
  factory = factory["load_params_file"](dir + "/aot.so.params").asModule();
  Module a = factory["create"](Device::cpu()).asModule();
  Module b = factory["create"](Device::cpu()).asModule();
  NDArray in = NDArray::empty({2, 16}, DataType::float32());
  NDArray out = NDArray::empty({2, 5}, DataType::float32());
  a["set_input_zero_copy"](0, in);
  a["set_output_zero_copy"](0, out);
  std::vector<float> x = randomVector(32, 3);
  std::copy(x.begin(), x.end(), in.data<float>());
  a["run"]();
  EXPECT_EQ(toVector(out), run(b, m, x));
  EXPECT_LT(relativeError(toVector(out), referenceMlp(m, x)), 1e-5);
  NDArray big = NDArray::empty({33}, DataType::float32());
  msg = errorOf([&] { a["set_input_zero_copy"](0, big.view({2, 16}, DataType::float32(), 4)); });
  EXPECT_NE(msg.find("is not 64-byte aligned"), std::string::npos) << msg;
  msg = errorOf([&] { a["set_output_zero_copy"](0, NDArray::empty({5, 2}, DataType::float32())); });
  EXPECT_NE(msg.find("expected float32[2,5]"), std::string::npos) << msg;
}

TEST(Aot, SeveralAotModelsInOneLibrary) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(1, 8, 8, 3, 2);
  auto g1 = buildMlp(m, "one_"), g2 = buildMlp(m, "two_");
  driver::CompileOptions options;
  options.executor = "aot";
  driver::compileGraphs({{"p", g1.get()}, {"q", g2.get()}}, dir + "/two.so", options);
  Module lib = runtime::loadModule(dir + "/two.so");
  std::vector<float> x = randomVector(8, 1);
  for (const char* name : {"p", "q"}) {
    Module ex = lib[name](Device::cpu()).asModule();
    ex["set_input"](0, toArray(x, {1, 8}));
    ex["run"]();
    EXPECT_LT(relativeError(toVector(ex["get_output"](0).asNDArray()), referenceMlp(m, x)), 1e-5)
        << name;
  }
}

}  // namespace
}  // namespace kiln::test
