// The compiler's named phases: --compile-to stops after each one and writes that phase's IR, and a
// compilation returns one result naming what it wrote, offloaded and shared.
#include <gtest/gtest.h>

#include "kiln/driver/compile.h"
#include "kiln/driver/context.h"
#include "kiln/ir/parser.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/support/json.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

// Three convs of the same shapes, each followed by a batch norm that the graph passes fold into it
// and a ReLU. The second and third read and write the blocked layout, so one kernel serves both;
// vanilla takes all three over when asked.
const char* kPhaseModel = R"(graph main(%x: float32[1,4,8,8]) {
  %s = const float32[4] random(seed=3, low=0.5, high=2.0)
  %t = const float32[4] random(seed=4)
  %m = const float32[4] random(seed=5)
  %v = const float32[4] random(seed=6, low=0.5, high=2.0)
  %w1 = const float32[4,4,3,3] random(seed=1)
  %b1 = const float32[4] random(seed=2)
  %c1 = Conv(%x, %w1, %b1) {kernel_shape=[3,3], pads=[1,1,1,1]}
  %n1 = BatchNormalization(%c1, %s, %t, %m, %v)
  %r1 = Relu(%n1)
  %w2 = const float32[4,4,3,3] random(seed=7)
  %b2 = const float32[4] random(seed=8)
  %c2 = Conv(%r1, %w2, %b2) {kernel_shape=[3,3], pads=[1,1,1,1]}
  %n2 = BatchNormalization(%c2, %s, %t, %m, %v)
  %r2 = Relu(%n2)
  %w3 = const float32[4,4,3,3] random(seed=9)
  %b3 = const float32[4] random(seed=10)
  %c3 = Conv(%r2, %w3, %b3) {kernel_shape=[3,3], pads=[1,1,1,1]}
  %n3 = BatchNormalization(%c3, %s, %t, %m, %v)
  %y = Relu(%n3)
  return %y
})";

std::shared_ptr<driver::CompileContext> phaseContext() {
  auto context = std::make_shared<driver::CompileContext>();
  context->extensions().load(KILN_VANILLA_EXTENSION);
  return context;
}

// Compiles kPhaseModel up to PHASE into scratch file FILE; returns the result and what it wrote.
std::pair<driver::CompileResult, std::string> compileTo(driver::CompilePhase phase,
                                                        const std::string& target = "") {
  auto context = phaseContext();
  auto graph = ir::parseGraph(kPhaseModel, context->ops());
  driver::CompileOptions options;
  options.context = context;
  options.target = target;
  options.compileTo = phase;
  std::string path = strCat(scratchDir(), "/", driver::phaseName(phase), ".out");
  driver::CompileResult result = driver::compileGraph(*graph, path, options);
  return {std::move(result), phase == driver::CompilePhase::kLink ? "" : readTextFile(path)};
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CompilePhases, EveryPhaseHasANameAndUnknownNamesAreListed) {
  std::vector<std::string> names;
  for (driver::CompilePhase p : driver::compilePhases()) {
    names.emplace_back(driver::phaseName(p));
    EXPECT_EQ(driver::parseCompilePhase(names.back()), p);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"import", "graph-passes", "partition", "fuse", "lower",
                                             "plan", "executor-codegen", "codegen", "link"}));
  std::string e = errorOf([] { driver::parseCompilePhase("optimize"); });
  EXPECT_NE(e.find("'optimize' is not known"), std::string::npos) << e;
  EXPECT_NE(e.find("import, graph-passes, partition"), std::string::npos) << e;
}

TEST(CompilePhases, GraphPhasesWriteTheGraphAsEachLeavesIt) {
  auto [imported, importText] = compileTo(driver::CompilePhase::kImport);
  EXPECT_EQ(imported.phase, driver::CompilePhase::kImport);
  EXPECT_EQ(importText.rfind("graph main(%x: float32[1,4,8,8])", 0), 0u) << importText;
  EXPECT_EQ(count(importText, "BatchNormalization("), 3u) << importText;

  auto [passed, passesText] = compileTo(driver::CompilePhase::kGraphPasses, "vanilla,llvm");
  EXPECT_EQ(count(passesText, "BatchNormalization("), 0u) << passesText;  // folded into the convs
  EXPECT_TRUE(passed.offloads.empty()) << "partitioning ran before its phase";

  auto [partitioned, partitionText] = compileTo(driver::CompilePhase::kPartition, "vanilla,llvm");
  ASSERT_EQ(partitioned.offloads.size(), 3u);
  EXPECT_EQ(partitioned.offloads[0].model, "default");
  EXPECT_EQ(partitioned.offloads[0].record.backend, "vanilla");
  EXPECT_EQ(partitioned.offloads[0].record.ops, (std::vector<std::string>{"Conv", "Relu"}));
  EXPECT_NE(partitionText, passesText);
  EXPECT_EQ(count(partitionText, "#group="), 0u) << "fusion ran before its phase";

  auto [fused, fuseText] = compileTo(driver::CompilePhase::kFuse);
  EXPECT_GT(count(fuseText, "#group="), 0u) << fuseText;
  EXPECT_EQ(fused.kernels, 0u) << "nothing is lowered before the lower phase";
}

TEST(CompilePhases, LaterPhasesWriteLoopIrThePlanTheExecutorAndLlvmIr) {
  auto [lowered, lowerText] = compileTo(driver::CompilePhase::kLower);
  EXPECT_GT(count(lowerText, "kiln_default__"), 0u) << lowerText;
  EXPECT_EQ(lowered.sharedKernels, 1u) << "the second and third conv have one kernel";
  EXPECT_GT(lowered.kernels, 0u);

  auto [planned, planText] = compileTo(driver::CompilePhase::kPlan);
  Json plan = Json::parse(planText).at("default");
  int64_t total = 0;
  for (const Json& bytes : plan.at("storages").asArray()) total += bytes.asInt();
  EXPECT_EQ(plan.at("total_bytes").asInt(), total);
  bool sawInput = false;
  for (const Json& v : plan.at("values").asArray()) {
    EXPECT_LT(v.at("storage").asInt(), static_cast<int64_t>(plan.at("storages").size()));
    sawInput = sawInput || v.at("name").asString() == "x";
  }
  EXPECT_TRUE(sawInput) << planText;

  auto [executor, executorText] = compileTo(driver::CompilePhase::kExecutorCodegen);
  Json metadata = Json::parse(executorText).at("default");
  EXPECT_GT(metadata.at("kernels").size(), 0u) << executorText;

  auto [generated, llvmText] = compileTo(driver::CompilePhase::kCodegen);
  ASSERT_EQ(generated.files.size(), 1u);
  EXPECT_EQ(generated.files[0].what, "LLVM IR after phase 'codegen'");
  EXPECT_GT(count(llvmText, "define "), 0u);
  EXPECT_NE(llvmText.find("kiln_default__"), std::string::npos);
  EXPECT_EQ(llvmText.find("\x7f"
                          "ELF"),
            std::string::npos);
}

TEST(CompilePhases, LinkWritesALibraryAndTheResultNamesEveryFile) {
  std::string dir = scratchDir();
  auto graph = ir::parseGraph(kPhaseModel);
  driver::CompileOptions options;
  options.params = "external";
  driver::CompileResult result = driver::compileGraph(*graph, dir + "/m.so", options);
  EXPECT_EQ(result.phase, driver::CompilePhase::kLink);
  ASSERT_EQ(result.files.size(), 2u);
  EXPECT_EQ(result.files[0].path, dir + "/m.so");
  EXPECT_EQ(result.files[0].what, "library");
  EXPECT_EQ(result.files[1].path, dir + "/m.so.params");
  EXPECT_EQ(result.files[1].what, "weights of model 'default'");
  EXPECT_TRUE(fileExists(result.files[1].path));

  runtime::Module bare =
      runtime::loadModule(result.files[0].path)["get_factory"]("default").asModule();
  runtime::Module loaded = bare["load_params_file"](result.files[1].path).asModule();
  runtime::Module ex = loaded["create"](runtime::Device::cpu()).asModule();
  ex["set_input"](0, toArray(randomVector(256, 3), {1, 4, 8, 8}));
  ex["run"]();
  EXPECT_EQ(ex["get_output"](0).asNDArray().shape(), (runtime::Shape{1, 4, 8, 8}));
}

TEST(CompilePhases, DumpIrWritesEveryPhase) {
  std::string dir = scratchDir() + "/dump";
  auto graph = ir::parseGraph(kPhaseModel);
  driver::CompileOptions options;
  options.dumpIrDir = dir;
  driver::compileGraph(*graph, scratchDir() + "/d.so", options);
  for (const char* file : {"00-input.ir", "kernels.tir", "memory_plan.json", "graph_executor.json",
                           "module.ll", "module.s"}) {
    EXPECT_TRUE(fileExists(dir + "/" + file)) << file;
  }
}

}  // namespace
}  // namespace kiln::test
