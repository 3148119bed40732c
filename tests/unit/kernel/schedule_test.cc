// Checks schedule knobs: workload keys name what a schedule tunes (and nothing else), overrides
// apply to their workload only, are range-checked, and change the code but never the results;
// schedule files parse and round-trip, and malformed ones are errors naming the line.
#include "kiln/kernel/schedule.h"

#include <gtest/gtest.h>

#include <random>

#include "graph_runner.h"
#include "kiln/ir/fused_group.h"
#include "kiln/ir/parser.h"
#include "kiln/kernel/lower.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

using namespace tir;  // NOLINT(google-build-using-namespace)

const char* kMatmul = R"(graph main(%a: float32[7,12]) {
  %b = const float32[3,12,16] random(seed=3)
  %y = kiln.MatMulPacked(%a, %b) {block=16, n=40}
  %r = Relu(%y)
  return %r
})";

std::vector<ir::FusedGroup> groupsOf(ir::Graph& g) {
  for (ir::Node* n : g.nodes()) n->group = 0;
  return ir::collectGroups(g);
}

TEST(Schedule, WorkloadKeysNameTheAnchorItsShapesAndTheTarget) {
  auto a = ir::parseGraph(kMatmul);
  auto b = ir::parseGraph(kMatmul);
  std::string keyA = workloadKey(groupsOf(*a)[0], TargetModel::avx512());
  EXPECT_EQ(keyA, workloadKey(groupsOf(*b)[0], TargetModel::avx512()));  // same layer, same key
  EXPECT_NE(keyA, workloadKey(groupsOf(*a)[0], TargetModel::avx2()));
  EXPECT_NE(keyA.find("kiln.MatMulPacked(float32[7,12],float32[3,12,16])->float32[7,40]"),
            std::string::npos)
      << keyA;
  EXPECT_NE(keyA.find("n=40"), std::string::npos) << keyA;
  EXPECT_EQ(keyA.find("Relu"), std::string::npos) << "the epilogue is not part of the workload";
}

TEST(Schedule, OverridesChangeTheKernelButNotItsResults) {
  auto g = ir::parseGraph(kMatmul);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> d(-1, 1);
  testing::Storage a(size_t{7} * 12);
  for (double& v : a) v = static_cast<float>(d(rng));
  ScheduleConfig base;
  LoweredKernel k0 = lowerGroup(groupsOf(*g)[0], "k", base);
  ASSERT_FALSE(k0.schedule.knobs.empty());
  std::vector<testing::Storage> want = testing::runGraph(*g, {{"a", a}}, base);

  ScheduleConfig tuned;
  // K in blocks of 5 (12 = 5 + 5 + 2): partial sums wait in a local buffer between blocks.
  tuned.knobs[k0.schedule.workload] = {{"mr", 3}, {"nv", 2}, {"unroll", 1}, {"k_block", 5}};
  LoweredKernel k1 = lowerGroup(groupsOf(*g)[0], "k", tuned);
  std::map<std::string, int64_t> chosen;
  for (const KnobChoice& c : k1.schedule.knobs) chosen[c.name] = c.value;
  EXPECT_EQ(chosen["mr"], 3);
  EXPECT_EQ(chosen["nv"], 2);
  std::vector<testing::Storage> got = testing::runGraph(*g, {{"a", a}}, tuned);
  ASSERT_EQ(got[0].size(), want[0].size());
  for (size_t i = 0; i < got[0].size(); ++i) EXPECT_NEAR(got[0][i], want[0][i], 1e-5) << i;

  // Another workload's override does not apply.
  ScheduleConfig other;
  other.knobs["kiln.MatMulPacked(float32[8,12])"] = {{"mr", 1}};
  LoweredKernel k2 = lowerGroup(groupsOf(*g)[0], "k", other);
  EXPECT_EQ(scheduleRecord(k2.schedule), scheduleRecord(k0.schedule));
}

TEST(Schedule, BadOverridesAreErrors) {
  auto g = ir::parseGraph(kMatmul);
  std::string key = lowerGroup(groupsOf(*g)[0], "k", {}).schedule.workload;
  ScheduleConfig outOfRange;
  outOfRange.knobs[key] = {{"mr", 999}};
  try {
    lowerGroup(groupsOf(*g)[0], "k", outOfRange);
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("knob 'mr'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is 999; expected 1.."), std::string::npos) << e.what();
  }
  ScheduleConfig unknown;
  unknown.knobs[key] = {{"oc_tile", 2}};
  try {
    lowerGroup(groupsOf(*g)[0], "k", unknown);
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no knob 'oc_tile'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mr"), std::string::npos) << e.what();
  }
}

// A grouped conv of 2 groups of 3 output blocks: its tile never straddles two groups, so the
// recorded NV divides 3, and an override that does not is an error rather than quietly changed.
TEST(Schedule, GroupedConvTilesDivideAGroup) {
  const char* conv = R"(graph main(%x: float32[1,4,5,5,16]) {
  %w = const float32[6,2,1,1,16,16] random(seed=4)
  %y = kiln.ConvBlocked(%x, %w) {block=16, channels=96, dilations=[1,1], group=2, in_channels=64, input_layout="blocked", kernel_shape=[1,1], pads=[0,0,0,0], strides=[1,1]}
  return %y
})";
  auto g = ir::parseGraph(conv);
  KernelSchedule s = lowerGroup(groupsOf(*g)[0], "k", {}).schedule;
  int64_t nv = 0;
  for (const KnobChoice& c : s.knobs) nv = c.name == "nv" ? c.value : nv;
  EXPECT_TRUE(nv == 1 || nv == 3) << "nv = " << nv;
  ScheduleConfig straddling;
  straddling.knobs[s.workload] = {{"nv", 2}};
  try {
    lowerGroup(groupsOf(*g)[0], "k", straddling);
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is 2; expected a divisor of 3"), std::string::npos)
        << e.what();
  }
}

TEST(Schedule, FilesRoundTripAndMalformedLinesAreNamed) {
  KernelSchedule s{"W(float32[2])", {{"mr", 4, 1, 8}, {"nv", 2, 1, 4}}};
  KnobOverrides o = parseScheduleFile(scheduleRecord(s) + "\n\n", "s.json");
  EXPECT_EQ(o.at("W(float32[2])").at("mr"), 4);
  EXPECT_EQ(o.at("W(float32[2])").at("nv"), 2);
  // A JSON array works too, and later records win.
  KnobOverrides a = parseScheduleFile(
      R"([{"workload": "W", "knobs": {"mr": 1}}, {"workload": "W", "knobs": {"mr": 5}}])", "a");
  EXPECT_EQ(a.at("W").at("mr"), 5);
  try {
    parseScheduleFile("{\"workload\": \"W\", \"knobs\": {}}\n{not json", "bad.json");
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json', line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parseScheduleFile(R"({"workload": "W", "knobs": {"mr": "six"}})", "t"), Error);
  EXPECT_THROW(parseScheduleFile(R"({"knobs": {"mr": 6}})", "t"), Error);
}

}  // namespace
}  // namespace kiln::kernel
