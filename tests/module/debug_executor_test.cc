// The debug executor: the graph executor's functions plus a kernel-by-kernel run that times every
// kernel and keeps its outputs.
#include <gtest/gtest.h>

#include <cmath>

#include "kiln/driver/compile.h"
#include "kiln/ir/op_registry.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/profile_summary.h"
#include "kiln/runtime/thread_pool.h"
#include "kiln/runtime/time_evaluator.h"
#include "kiln/runtime/timing_stats.h"
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

// The layers of an MLP as models of their own: Relu(x @ w1 + b1), and h @ w2.
std::unique_ptr<ir::Graph> mlpLayer(const Mlp& m, int layer) {
  auto g = std::make_unique<ir::Graph>();
  auto node = [&](const std::string& op, std::vector<ir::Value*> in, const std::string& name) {
    ir::Node* n = g->addNode(op, name, std::move(in), {name + "_out"}, {});
    ir::inferTypes(*n);
    return n->outputs[0];
  };
  if (layer == 1) {
    ir::Value* x = g->addInput("x", {runtime::DataType::float32(), {m.batch, m.in}});
    ir::Value* w1 = g->addConstant("w1", toArray(m.w1, {m.in, m.hidden}));
    ir::Value* b1 = g->addConstant("b1", toArray(m.b1, {m.hidden}));
    g->outputs().push_back(
        node("Relu", {node("Add", {node("MatMul", {x, w1}, "mm1"), b1}, "add")}, "relu"));
  } else {
    ir::Value* h = g->addInput("h", {runtime::DataType::float32(), {m.batch, m.hidden}});
    ir::Value* w2 = g->addConstant("w2", toArray(m.w2, {m.hidden, m.out}));
    g->outputs().push_back(node("MatMul", {h, w2}, "mm2"));
  }
  return g;
}

// The time of one run() of EX, in microseconds.
double runUs(const Module& ex) { return runtime::timeEvaluate(ex["run"], {}, 1, 1).at(0) * 1000; }

// The profile's numbers are checked against times measured without it: its nodes against each
// layer compiled and timed as a model of its own, its sum against the end-to-end time. CTest runs
// another test on the other core, so everything runs on one thread and every round measures the
// profile, the whole model and each layer back to back (each median then saw the same load); a
// measurement that misses is taken again, at most three times.
TEST(DebugExecutor, TheProfileAgreesWithIndependentlyMeasuredTimes) {
  runtime::ThreadPool::global().setNumThreads(1);
  std::string dir = scratchDir();
  Mlp m = randomMlp(128, 512, 512, 256, 9);  // ~100 MFLOP: milliseconds, far above timer noise
  driver::compileGraph(*buildMlp(m, ""), dir + "/mlp.so", {});
  driver::compileGraph(*mlpLayer(m, 1), dir + "/layer1.so", {});
  driver::compileGraph(*mlpLayer(m, 2), dir + "/layer2.so", {});
  Module ex =
      runtime::loadModule(dir + "/mlp.so")["debug_create"]("default", Device::cpu()).asModule();
  Module whole = runtime::loadModule(dir + "/mlp.so")["default"](Device::cpu()).asModule();
  Module layer1 = runtime::loadModule(dir + "/layer1.so")["default"](Device::cpu()).asModule();
  Module layer2 = runtime::loadModule(dir + "/layer2.so")["default"](Device::cpu()).asModule();
  std::vector<float> x = randomVector(static_cast<size_t>(m.batch * m.in), 2);
  for (const Module* e : {&ex, &whole, &layer1}) (*e)["set_input"](0, toArray(x, {m.batch, m.in}));
  layer2["set_input"](
      0, toArray(randomVector(static_cast<size_t>(m.batch * m.hidden), 3), {m.batch, m.hidden}));
  std::string report;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::vector<double> alone[2];
    runtime::ProfileSummary s = runtime::profileExecutor(ex, 15, [&] {
      double wholeMs = runUs(whole) / 1000;
      alone[0].push_back(runUs(layer1));
      alone[1].push_back(runUs(layer2));
      return wholeMs;
    });
    ASSERT_EQ(s.nodes.size(), 2u);
    bool nodesAgree = true;
    report = strCat("attempt ", attempt, ": nodes ", s.nodesUs, " us, end to end ", s.endToEndUs,
                    " us (bound ", s.gapBoundUs(), " us)");
    for (size_t k = 0; k < 2; ++k) {
      double aloneUs = runtime::summarize(alone[k]).median;
      double bound = std::max(0.25 * aloneUs, 50.0);
      nodesAgree = nodesAgree && std::abs(s.nodes[k].us - aloneUs) <= bound;
      report += strCat("; node ", k, " ", s.nodes[k].us, " us, alone ", aloneUs, " us (bound ",
                       bound, ")");
    }
    if (s.reconciled() && nodesAgree) return;
  }
  FAIL() << report;
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
