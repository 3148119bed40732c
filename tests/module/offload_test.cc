// Offloading through an extension end to end: the vanilla extension claims Conv + bias + ReLU, the
// artifact records the backend it needs, the runtime finds the backend's runtime where it is told
// to, and the model computes what kiln's own code computes.
#include <gtest/gtest.h>

#include <thread>

#include "kiln/driver/compile.h"
#include "kiln/driver/context.h"
#include "kiln/ir/parser.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

// conv1 has a bias and a ReLU (vanilla's pattern); conv2 has no bias; conv1's 4 output channels
// and conv2's 2 let min-channels choose.
const char* kModel = R"(graph main(%x: float32[1,3,9,9]) {
  %w1 = const float32[4,3,3,3] random(seed=1)
  %b1 = const float32[4] random(seed=2)
  %c1 = Conv(%x, %w1, %b1) {kernel_shape=[3,3], pads=[1,1,1,1], strides=[2,2]}
  %r1 = Relu(%c1)
  %w2 = const float32[2,4,1,1] random(seed=3)
  %c2 = Conv(%r1, %w2) {kernel_shape=[1,1]}
  %r2 = Relu(%c2)
  %y = Sigmoid(%r2)
  return %y
})";

std::shared_ptr<driver::CompileContext> vanillaContext() {
  auto context = std::make_shared<driver::CompileContext>();
  context->extensions().load(KILN_VANILLA_EXTENSION);
  return context;
}

struct Compiled {
  std::string path;
  std::vector<transform::OffloadRecord> offloads;
};

// The test's scratch folder, emptied once per test.
const std::string& testDir() {
  static std::string test, dir;
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  if (name != test) {
    test = name;
    dir = scratchDir();
  }
  return dir;
}

Compiled compile(const std::shared_ptr<const driver::CompileContext>& context,
                 const std::string& name, driver::CompileOptions options,
                 const char* model = kModel) {
  auto graph = ir::parseGraph(model, context ? context->ops() : nullptr);
  Compiled out{testDir() + "/" + name + ".so", {}};
  options.context = context;
  for (driver::ModelOffload& o : driver::compileGraph(*graph, out.path, options).offloads)
    out.offloads.push_back(o.record);
  return out;
}

std::vector<float> run(const std::string& path, const std::vector<float>& x,
                       const runtime::LoadOptions& load) {
  runtime::Module ex =
      runtime::loadModule(path, load)["default"](runtime::Device::cpu()).asModule();
  ex["set_input"](0, toArray(x, {1, 3, 9, 9}));
  ex["run"]();
  return toVector(ex["get_output"](0).asNDArray());
}

runtime::LoadOptions withVanilla() { return {.extensions = {KILN_VANILLA_EXTENSION}}; }

TEST(Offload, VanillaRunsItsChainsAndAgreesWithKilnsOwnCode) {
  auto context = vanillaContext();
  Compiled own = compile(context, "own", {});
  EXPECT_TRUE(own.offloads.empty());  // loaded but not named: does nothing
  driver::CompileOptions options;
  options.target = "vanilla,llvm";
  Compiled offloaded = compile(context, "vanilla", options);
  ASSERT_EQ(offloaded.offloads.size(), 1u);  // conv2 has no bias
  EXPECT_EQ(offloaded.offloads[0].backend, "vanilla");
  EXPECT_EQ(offloaded.offloads[0].pattern, "conv_bias_relu");
  EXPECT_EQ(offloaded.offloads[0].nodes, (std::vector<std::string>{"c1", "r1"}));

  std::vector<float> x = randomVector(size_t{3} * 81, 5);
  std::vector<float> want = run(own.path, x, {});
  EXPECT_LT(relativeError(run(offloaded.path, x, withVanilla()), want), 1e-5);

  Json needs =
      runtime::readArtifactFile(offloaded.path).artifact.models[0].signature.at("offload_backends");
  EXPECT_EQ(needs.at("vanilla").asInt(), 1);
  EXPECT_TRUE(runtime::readArtifactFile(own.path)
                  .artifact.models[0]
                  .signature.at("offload_backends")
                  .asObject()
                  .empty());
}

// vanilla asks for fold-batch-norm before it partitions: at opt level 1, where kiln folds no batch
// normalisation for its own code, Conv + BatchNormalization + Relu reaches vanilla as Conv + Relu.
TEST(Offload, VanillaFoldsBatchNormsBeforeItPartitions) {
  const char* model = R"(graph main(%x: float32[1,3,9,9]) {
    %w = const float32[4,3,3,3] random(seed=1)
    %scale = const float32[4] random(seed=3, low=0.5, high=2.0)
    %shift = const float32[4] random(seed=4)
    %mean = const float32[4] random(seed=5)
    %var = const float32[4] random(seed=6, low=0.1, high=3.0)
    %c = Conv(%x, %w) {kernel_shape=[3,3], pads=[1,1,1,1]}
    %n = BatchNormalization(%c, %scale, %shift, %mean, %var) {epsilon=0.001}
    %y = Relu(%n)
    return %y
  })";
  auto context = vanillaContext();
  driver::CompileOptions options;
  options.optLevel = 1;
  Compiled own = compile(context, "own", options, model);
  options.target = "vanilla,llvm";
  Compiled offloaded = compile(context, "vanilla", options, model);
  ASSERT_EQ(offloaded.offloads.size(), 1u);
  EXPECT_EQ(offloaded.offloads[0].ops, (std::vector<std::string>{"Conv", "Relu"}));
  std::vector<float> x = randomVector(size_t{3} * 81, 7);
  EXPECT_LT(relativeError(run(offloaded.path, x, withVanilla()), run(own.path, x, {})), 1e-5);
}

#ifdef KILN_DNNL_EXTENSION
// Two contexts holding different extensions compile in parallel threads; each offloads to its own
// backend only, and neither sees the other's.
TEST(ModuleThreads, ContextsWithDifferentExtensionsCompileSideBySide) {
  auto vanilla = vanillaContext();
  auto dnnl = std::make_shared<driver::CompileContext>();
  dnnl->extensions().load(KILN_DNNL_EXTENSION);
  const std::string& dir = testDir();
  constexpr int kRounds = 3;
  std::vector<std::vector<transform::OffloadRecord>> a(kRounds), b(kRounds);
  auto compileIn = [&dir](const std::shared_ptr<driver::CompileContext>& context,
                          const std::string& target, const std::string& path,
                          std::vector<transform::OffloadRecord>& records) {
    auto graph = ir::parseGraph(kModel, context->ops());
    driver::CompileOptions options;
    options.context = context;
    options.target = target;
    for (driver::ModelOffload& o :
         driver::compileGraph(*graph, strCat(dir, "/", path), options).offloads)
      records.push_back(o.record);
  };
  std::thread ta([&] {
    for (int r = 0; r < kRounds; ++r)
      compileIn(vanilla, "vanilla,llvm", strCat("v", r, ".so"), a[r]);
  });
  std::thread tb([&] {
    for (int r = 0; r < kRounds; ++r) compileIn(dnnl, "dnnl,llvm", strCat("d", r, ".so"), b[r]);
  });
  ta.join();
  tb.join();
  for (int r = 0; r < kRounds; ++r) {
    ASSERT_EQ(a[r].size(), 1u) << r;  // conv1 + bias + relu
    EXPECT_EQ(a[r][0].backend, "vanilla");
    ASSERT_EQ(b[r].size(), 2u) << r;  // both convs, with or without a bias
    EXPECT_EQ(b[r][1].backend, "dnnl");
  }
  EXPECT_EQ(vanilla->extensions().find("dnnl"), nullptr);
  EXPECT_EQ(dnnl->extensions().find("vanilla"), nullptr);
  std::vector<float> x = randomVector(size_t{3} * 81, 9);
  EXPECT_LT(
      relativeError(run(dir + "/v2.so", x, withVanilla()), run(dir + "/v0.so", x, withVanilla())),
      1e-6);
}

// With both in-tree extensions loaded, --target llvm offloads nothing: only named backends act.
TEST(Offload, BackendsNotNamedInTheTargetDoNothing) {
  auto both = vanillaContext();
  both->extensions().load(KILN_DNNL_EXTENSION);
  ASSERT_EQ(both->extensions().backends().size(), 2u);
  driver::CompileOptions options;
  options.target = "llvm";
  EXPECT_TRUE(compile(both, "llvm", options).offloads.empty());
  options.target = "";
  EXPECT_TRUE(compile(both, "host", options).offloads.empty());
  options.target = "dnnl,vanilla,llvm";  // dnnl claims first: vanilla finds nothing left
  std::vector<transform::OffloadRecord> records = compile(both, "ordered", options).offloads;
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].backend, "dnnl");
  EXPECT_EQ(records[1].backend, "dnnl");
  options.target = "vanilla,dnnl,llvm";  // vanilla first: it takes conv1, dnnl the rest
  records = compile(both, "reordered", options).offloads;
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].backend, "vanilla");
  EXPECT_EQ(records[1].backend, "dnnl");
}
#endif

TEST(Offload, TargetAttributesReachThePredicate) {
  auto context = vanillaContext();
  driver::CompileOptions options;
  options.target = "vanilla,llvm";
  options.backendAttrs["vanilla"]["min-channels"] = "5";
  EXPECT_TRUE(compile(context, "min5", options).offloads.empty());
  options.backendAttrs["vanilla"]["min-channels"] = "4";
  EXPECT_EQ(compile(context, "min4", options).offloads.size(), 1u);
  options.backendAttrs["vanilla"]["min-channels"] = "many";
  std::string e = errorOf([&] { compile(context, "bad", options); });
  EXPECT_NE(e.find("--target-vanilla-min-channels 'many' is not valid; expected a 64-bit integer"),
            std::string::npos)
      << e;
  options.backendAttrs = {{"vanilla", {{"speed", "1"}}}};
  e = errorOf([&] { compile(context, "unknown", options); });
  EXPECT_NE(e.find("backend 'vanilla' has no target attribute 'speed'; it has: min-channels"),
            std::string::npos)
      << e;
  options.target = "llvm";
  options.backendAttrs = {{"vanilla", {{"min-channels", "2"}}}};
  e = errorOf([&] { compile(context, "unnamed", options); });
  EXPECT_NE(e.find("but --target does not name backend 'vanilla'"), std::string::npos) << e;
}

TEST(Offload, TargetsNameLoadedBackendsOnce) {
  auto context = vanillaContext();
  driver::CompileOptions options;
  options.target = "dnnl,llvm";
  std::string e = errorOf([&] { compile(context, "a", options); });
  EXPECT_NE(e.find("names backend 'dnnl', which no loaded extension provides (loaded backends: "
                   "vanilla)"),
            std::string::npos)
      << e;
  options.target = "llvm,vanilla";
  e = errorOf([&] { compile(context, "b", options); });
  EXPECT_NE(e.find("after llvm"), std::string::npos) << e;
  options.target = "vanilla,vanilla";
  e = errorOf([&] { compile(nullptr, "c", options); });
  EXPECT_NE(e.find("names backend 'vanilla' twice"), std::string::npos) << e;
  options.target = "vanilla";  // llvm implied
  EXPECT_EQ(compile(context, "d", options).offloads.size(), 1u);
}

TEST(Offload, AMissingRuntimeIsNamedAndAotRefuses) {
  auto context = vanillaContext();
  driver::CompileOptions options;
  options.target = "vanilla,llvm";
  Compiled c = compile(context, "needs", options);
  std::string e = errorOf([&] { runtime::loadModule(c.path, {.extensions = {testDir()}}); });
  EXPECT_NE(e.find("backend 'vanilla' is needed, but no extension on the search path runs it"),
            std::string::npos)
      << e;
  options.executor = "aot";
  e = errorOf([&] { compile(context, "aot", options); });
  EXPECT_NE(e.find("--executor aot cannot run kernel"), std::string::npos) << e;
  EXPECT_NE(e.find("offloaded to backend 'vanilla'"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::test
