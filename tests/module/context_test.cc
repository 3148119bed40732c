// Compile contexts are owned by their caller: two contexts with different ops, lowerings and passes
// compile in parallel threads of one process and each library computes what its own context says.
#include "kiln/driver/context.h"

#include <gtest/gtest.h>

#include <thread>

#include "kiln/driver/compile.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/parser.h"
#include "kiln/kernel/lowering_table.h"
#include "kiln/runtime/module.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using ElementOf = std::function<tir::Expr(const tir::Expr&)>;

// A context with its own elementwise op OP computing F, and a pass that turns every Neg into OP.
std::shared_ptr<driver::CompileContext> contextWith(const std::string& op, const ElementOf& f) {
  auto context = std::make_shared<driver::CompileContext>();
  context->addOp({.name = op, .opClass = ir::OpClass::kElementwise, .inferTypes = [](ir::Node& n) {
                    n.outputs[0]->type = n.inputs[0]->type;
                  }});
  context->addLowering(
      op, kernel::elementwiseLowering(
              [f](const ir::Node&, const std::vector<tir::Expr>& in) { return f(in[0]); }));
  context->pipeline().insertAfter(
      "simplify", {"neg-to-" + op, 1, [op](ir::Graph& g, const driver::PassTarget&) {
                     for (ir::Node* n : g.nodes()) {
                       if (n->op == "Neg") n->op = op;
                     }
                   }});
  return context;
}

const char* kNegModel = R"(graph main(%x: float32[3,40]) {
  %n = Neg(%x)
  %y = Relu(%n)
  return %y
})";

// Compiles kNegModel with CONTEXT (null: kiln's own) and runs it on X.
std::vector<float> compileAndRun(const std::shared_ptr<const driver::CompileContext>& context,
                                 const std::string& path, const std::vector<float>& x) {
  auto graph = ir::parseGraph(kNegModel, context ? context->ops() : nullptr);
  driver::CompileOptions options;
  options.context = context;
  driver::compileGraph(*graph, path, options);
  runtime::Module ex = runtime::loadModule(path)["default"](runtime::Device::cpu()).asModule();
  ex["set_input"](0, toArray(x, {3, 40}));
  ex["run"]();
  return toVector(ex["get_output"](0).asNDArray());
}

TEST(ModuleThreads, TwoContextsCompileSideBySideWithoutSeeingEachOther) {
  std::string dir = scratchDir();
  auto twice =
      contextWith("a.Twice", [](const tir::Expr& v) { return v * tir::constant(2.0, v->dtype); });
  auto plusOne =
      contextWith("b.PlusOne", [](const tir::Expr& v) { return v + tir::constant(1.0, v->dtype); });
  std::vector<float> x = randomVector(120, 11);
  auto expect = [&x](const std::function<float(float)>& f) {
    std::vector<float> y;
    y.reserve(x.size());
    for (float v : x) y.push_back(std::max(0.0F, f(v)));
    return y;
  };
  std::vector<float> wantTwice = expect([](float v) { return 2 * v; });
  std::vector<float> wantPlusOne = expect([](float v) { return v + 1; });
  std::vector<float> wantOwn = expect([](float v) { return -v; });

  constexpr int kRounds = 3;
  std::vector<double> errTwice(kRounds, 1), errPlusOne(kRounds, 1), errOwn(kRounds, 1);
  std::thread a([&] {
    for (int r = 0; r < kRounds; ++r) {
      std::string path = dir + "/twice" + std::to_string(r) + ".so";
      errTwice[r] = relativeError(compileAndRun(twice, path, x), wantTwice);
    }
  });
  std::thread b([&] {
    for (int r = 0; r < kRounds; ++r) {
      std::string path = dir + "/plus_one" + std::to_string(r) + ".so";
      errPlusOne[r] = relativeError(compileAndRun(plusOne, path, x), wantPlusOne);
      path = dir + "/own" + std::to_string(r) + ".so";
      errOwn[r] = relativeError(compileAndRun(nullptr, path, x), wantOwn);
    }
  });
  a.join();
  b.join();
  for (int r = 0; r < kRounds; ++r) {
    EXPECT_LT(errTwice[r], 1e-6) << "round " << r;
    EXPECT_LT(errPlusOne[r], 1e-6) << "round " << r;
    EXPECT_LT(errOwn[r], 1e-6) << "round " << r;
  }
}

TEST(CompileContext, OpsOfOneContextAreUnknownToAnother) {
  auto twice = contextWith("a.Twice", [](const tir::Expr& v) { return v; });
  auto plusOne = contextWith("b.PlusOne", [](const tir::Expr& v) { return v; });
  const char* text = R"(graph main(%x: float32[4]) {
    %y = a.Twice(%x)
    return %y
  })";
  EXPECT_NO_THROW(ir::parseGraph(text, twice->ops()));
  std::string e = errorOf([&] { ir::parseGraph(text, plusOne->ops()); });
  EXPECT_NE(e.find("'a.Twice' is not a known op"), std::string::npos) << e;
  e = errorOf([&] { ir::parseGraph(text); });
  EXPECT_NE(e.find("'a.Twice' is not a known op"), std::string::npos) << e;
  EXPECT_EQ(ir::OpRegistry::builtin()->find("a.Twice"), nullptr);
  EXPECT_EQ(kernel::LoweringTable::builtin()->find("a.Twice"), nullptr);
  EXPECT_NE(twice->lowerings()->find("a.Twice"), nullptr);
  EXPECT_EQ(plusOne->lowerings()->find("a.Twice"), nullptr);
  EXPECT_EQ(driver::Pipeline::builtin().names().size() + 1, twice->pipeline().names().size());
}

TEST(CompileContext, AGraphOfAnotherContextIsRefused) {
  auto twice = contextWith("a.Twice", [](const tir::Expr& v) { return v; });
  auto plusOne = contextWith("b.PlusOne", [](const tir::Expr& v) { return v; });
  auto graph = ir::parseGraph(kNegModel, twice->ops());
  driver::CompileOptions options;
  options.context = plusOne;
  std::string e = errorOf([&] { driver::compileGraph(*graph, scratchDir() + "/m.so", options); });
  EXPECT_NE(e.find("made with the ops of another compile context"), std::string::npos) << e;
}

TEST(CompileContext, PipelineNamesAndPlacesPasses) {
  driver::CompileContext context;
  driver::Pipeline& p = context.pipeline();
  auto noop = [](ir::Graph&, const driver::PassTarget&) {};
  p.insertBefore("fuse-ops", {"mine", 2, noop});
  std::vector<std::string> names = p.names();
  auto at = [&names](const std::string& n) { return std::find(names.begin(), names.end(), n); };
  EXPECT_EQ(at("mine") + 1, at("fuse-ops"));
  std::string e = errorOf([&] { p.insertAfter("no-such-pass", {"x", 1, noop}); });
  EXPECT_NE(e.find("'no-such-pass' is not in the pipeline"), std::string::npos) << e;
  e = errorOf([&] { p.insertAfter("simplify", {"mine", 1, noop}); });
  EXPECT_NE(e.find("'mine' is already in the pipeline"), std::string::npos) << e;
  std::vector<ir::Pass> atOne = p.passes(1, {});
  // fold-constants, simplify, decompose-conv, partition: "mine" runs from level 2
  EXPECT_EQ(atOne.size(), 4u);
  EXPECT_EQ(p.passes(2, {}).size(), 11u);
  EXPECT_EQ(p.passes(0, {}).size(), 1u);  // partition runs at every level
  // The phases: the passes before partition, partition, the passes after.
  EXPECT_EQ(p.passes(3, {}, driver::CompilePhase::kGraphPasses).size(), 6u);
  EXPECT_EQ(p.passes(3, {}, driver::CompilePhase::kPartition).size(), 7u);
  EXPECT_EQ(p.entry("mine").minOptLevel, 2);
  e = errorOf([&] { p.entry("nope"); });
  EXPECT_NE(e.find("'nope' is not in the pipeline"), std::string::npos) << e;
  e = errorOf([&] { p.passes(4, {}); });
  EXPECT_NE(e.find("--opt-level 4 is out of range"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::test
