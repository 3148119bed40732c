// A backend that emits code into the artifact: the test extension "objgen" compiles its claims
// into objects, kiln links them in, and the library runs without the extension, through either
// executor. Broken objects are refused at compile time, naming the backend and the fault.
#include <gtest/gtest.h>

#include "kiln/driver/compile.h"
#include "kiln/driver/context.h"
#include "kiln/ir/parser.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

// Two chains for objgen: Mul + Add (the Mul's output is the Add's second operand), then a Mul
// alone; both kernels define the same global helper, which only links once kiln localises it.
const char* kObjectModel = R"(graph main(%x: float32[2,3,4], %z: float32[2,3,4]) {
  %w = const float32[2,3,4] random(seed=1)
  %m = Mul(%x, %w)
  %a = Add(%z, %m)
  %m2 = Mul(%a, %a)
  %y = Sigmoid(%m2)
  return %y
})";

std::shared_ptr<driver::CompileContext> objgenContext(const char* extension) {
  auto context = std::make_shared<driver::CompileContext>();
  context->extensions().load(extension);
  return context;
}

std::vector<transform::OffloadRecord> compile(
    const std::string& path, driver::CompileOptions o,
    const std::shared_ptr<driver::CompileContext>& context = objgenContext(KILN_OBJECT_EXTENSION)) {
  auto graph = ir::parseGraph(kObjectModel, context->ops());
  std::vector<transform::OffloadRecord> records;
  o.context = context;
  for (driver::ModelOffload& m : driver::compileGraph(*graph, path, o).offloads)
    records.push_back(m.record);
  return records;
}

std::vector<float> runObjectModel(const std::string& path, const std::vector<float>& x,
                                  const std::vector<float>& z) {
  runtime::Module ex = runtime::loadModule(path)["default"](runtime::Device::cpu()).asModule();
  ex["set_input"](0, toArray(x, {2, 3, 4}));
  ex["set_input"](1, toArray(z, {2, 3, 4}));
  ex["run"]();
  return toVector(ex["get_output"](0).asNDArray());
}

TEST(ObjectOffload, LinkedCodeRunsWithoutTheExtension) {
  std::string dir = scratchDir();
  driver::CompileOptions options;
  EXPECT_TRUE(compile(dir + "/own.so", options).empty());
  options.target = "objgen,llvm";
  std::vector<transform::OffloadRecord> records = compile(dir + "/graph.so", options);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].nodes, (std::vector<std::string>{"m", "a"}));
  EXPECT_EQ(records[1].nodes, (std::vector<std::string>{"m2"}));
  EXPECT_TRUE(records[0].linked);
  options.executor = "aot";
  compile(dir + "/aot.so", options);

  // Nothing is needed at run time: no extension is loaded, none is on the search path.
  EXPECT_TRUE(runtime::readArtifactFile(dir + "/graph.so")
                  .artifact.models[0]
                  .signature.at("offload_backends")
                  .asObject()
                  .empty());
  std::vector<float> x = randomVector(24, 2), z = randomVector(24, 3);
  std::vector<float> want = runObjectModel(dir + "/own.so", x, z);
  EXPECT_LT(relativeError(runObjectModel(dir + "/graph.so", x, z), want), 1e-6);
  EXPECT_LT(relativeError(runObjectModel(dir + "/aot.so", x, z), want), 1e-6);
}

TEST(ObjectOffload, BrokenObjectsAreRefusedNamingTheBackend) {
  std::string dir = scratchDir();
  driver::CompileOptions options;
  options.target = "objgen,llvm";
  auto faultOf = [&](const std::string& attr, const std::string& value) {
    options.backendAttrs = {{"objgen", {{attr, value}}}};
    return errorOf([&] { compile(dir + "/m.so", options); });
  };
  std::string prefix = "the object backend 'objgen' compiled for kernel 'kiln_default__";
  for (const auto& [fault, want] : std::vector<std::pair<std::string, std::string>>{
           {"text", "is not an object file"},
           {"no-entry", "cannot be linked: it defines no symbol 'objgen_missing'"},
           {"hidden", "cannot be linked: 'objgen_kernel' is not of default visibility"},
           {"shared", "file that is not relocatable; expected a relocatable ELF object"}}) {
    std::string e = faultOf("fault", fault);
    EXPECT_NE(e.find(prefix), std::string::npos) << fault << ": " << e;
    EXPECT_NE(e.find(want), std::string::npos) << fault << ": " << e;
  }
  std::string e = faultOf("cc", "false");
  EXPECT_NE(e.find("backend 'objgen' failed to compile Mul 'm', Add 'a': the C compiler failed"),
            std::string::npos)
      << e;
#if defined(__x86_64__)
  if (fileExists("/usr/bin/aarch64-linux-gnu-gcc")) {
    e = faultOf("cc", "aarch64-linux-gnu-gcc");
    EXPECT_NE(e.find("is for aarch64; the model is compiled for x86_64"), std::string::npos) << e;
  }
#endif
  EXPECT_FALSE(fileExists(dir + "/m.so"));
}

// The passes a backend asks for run around its partitioning, and only when --target names it.
TEST(ObjectOffload, PassesRunBeforeAndAfterPartitioning) {
  auto context = objgenContext(KILN_OBJECT_PASSES_EXTENSION);
  std::vector<std::string> seen;
  auto observer = [&seen](const std::string& name) {
    // Level 4 is beyond every opt level: the entries run only as a backend's passes.
    return driver::PipelineEntry{name, 4, [&seen, name](ir::Graph& g, const driver::PassTarget&) {
                                   int offloads = 0;
                                   for (const ir::Node* n : g.nodes()) {
                                     offloads += n->op == "kiln.Offload" ? 1 : 0;
                                   }
                                   seen.push_back(strCat(name, ": ", offloads));
                                 }};
  };
  context->pipeline().insertAfter("concat-in-place", observer("observe-before"));
  context->pipeline().insertAfter("observe-before", observer("observe-after"));
  std::string dir = scratchDir();
  driver::CompileOptions options;
  compile(dir + "/own.so", options, context);
  EXPECT_TRUE(seen.empty());
  options.target = "objgen,llvm";
  EXPECT_EQ(compile(dir + "/objgen.so", options, context).size(), 2u);
  EXPECT_EQ(seen, (std::vector<std::string>{"observe-before: 0", "observe-after: 2"}));
}

}  // namespace
}  // namespace kiln::test
