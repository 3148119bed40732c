// The debug executor: the graph executor's functions plus a kernel-by-kernel run that times every
// kernel and keeps its outputs.
#include <gtest/gtest.h>

#include "kiln/driver/compile.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::Device;
using runtime::Module;

TEST(DebugExecutor, TimesEveryKernelAndKeepsTheirOutputs) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(2, 32, 64, 7, 6);
  auto g = buildMlp(m, "");
  driver::compileGraph(*g, dir + "/mlp.so", {});
  Module lib = runtime::loadModule(dir + "/mlp.so");
  Module ex = lib["debug_create"]("default", Device::cpu()).asModule();
  EXPECT_STREQ(ex.typeKey(), "debug_executor");
  std::vector<float> x = randomVector(64, 1);
  ex["set_input"]("x", toArray(x, {2, 32}));
  ex["run"]();
  std::vector<float> out = toVector(ex["get_output"](0).asNDArray());
  EXPECT_LT(relativeError(out, referenceMlp(m, x)), 1e-5);

  Json rows = ex["profile"](int64_t{1}).asJson();
  ASSERT_GE(rows.size(), 2u);
  double previousStart = -1;
  int64_t flops = 0;
  for (const Json& row : rows.asArray()) {
    EXPECT_GE(row.at("us").asDouble(), 0);
    EXPECT_GT(row.at("start_us").asDouble(), previousStart);
    previousStart = row.at("start_us").asDouble();
    EXPECT_GE(row.at("ops").size(), 1u);
    EXPECT_EQ(row.at("outputs").size(), 1u);
    flops += row.at("flops").asInt();
  }
  // Two matrix products dominate: 2*B*(K*H + H*O) multiply-adds counted twice.
  EXPECT_GE(flops, 2 * m.batch * (m.in * m.hidden + m.hidden * m.out));
  // The last kernel's kept output is the model's output.
  auto last = static_cast<int64_t>(rows.size() - 1);
  EXPECT_EQ(toVector(ex["get_node_output"](last, int64_t{0}).asNDArray()), out);
  std::string msg;
  try {
    ex["get_node_output"](last + 1, int64_t{0});
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("has no kept outputs"), std::string::npos) << msg;
}

TEST(DebugExecutor, AotModelsSayTheyCannotBeProfiled) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(1, 4, 4, 2, 6);
  auto g = buildMlp(m, "");
  driver::CompileOptions options;
  options.executor = "aot";
  driver::compileGraph(*g, dir + "/aot.so", options);
  Module lib = runtime::loadModule(dir + "/aot.so");
  std::string msg;
  try {
    lib["debug_create"]("default", Device::cpu());
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("--executor graph"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kiln::test
