// planMemory checked by brute force: on random graphs no two tensors that are live at the same
// time may share bytes (but for in-place Concat inputs, which lie inside their output), and graph
// inputs and outputs never share a storage.
#include "kiln/transform/plan_memory.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "kiln/ir/fused_group.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/parser.h"
#include "kiln/transform/passes.h"

namespace kiln::transform {
namespace {

using ir::Value;

int64_t bytesOf(const Value* v) {
  return v->type.numel() * static_cast<int64_t>(v->type.dtype.bytes());
}

// A random DAG of Relu, Add and Concat over [n,4] float tensors, with random graph outputs.
std::unique_ptr<ir::Graph> randomGraph(std::mt19937& rng) {
  auto g = std::make_unique<ir::Graph>();
  std::vector<Value*> values;
  int numInputs = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < numInputs; ++i) {
    int64_t rows = 1 + static_cast<int64_t>(rng() % 6);
    values.push_back(
        g->addInput("in" + std::to_string(i), {runtime::DataType::float32(), {rows, 4}}));
  }
  int numNodes = 3 + static_cast<int>(rng() % 25);
  for (int i = 0; i < numNodes; ++i) {
    Value* a = values[rng() % values.size()];
    Value* b = values[rng() % values.size()];
    std::string name = "n" + std::to_string(i);
    ir::Node* node;
    switch (rng() % 3) {
      case 0:
        node = g->addNode("Relu", name, {a}, {name});
        break;
      case 1:
        if (b->type != a->type) b = a;
        node = g->addNode("Add", name, {a, b}, {name});
        break;
      default: {
        if (a->type.shape[0] + b->type.shape[0] > 40) b = a;
        ir::Attrs attrs;
        attrs.set("axis", int64_t{0});
        node = g->addNode("Concat", name, {a, b}, {name}, attrs);
      }
    }
    ir::inferTypes(*node);
    values.push_back(node->outputs[0]);
  }
  std::set<Value*> outputs = {values.back()};
  for (size_t i = numInputs; i + 1 < values.size(); ++i) {
    if (rng() % 5 == 0) outputs.insert(values[i]);
  }
  for (Value* v : outputs) g->outputs().push_back(v);
  g->removeDeadCode();
  return g;
}

// Every planned value's lifetime in group steps: [producer, last consumer]; inputs and outputs
// are live throughout, since the executor's caller reads and writes them between runs.
std::map<const Value*, std::pair<int, int>> lifetimes(const ir::Graph& g,
                                                      const std::vector<ir::FusedGroup>& groups) {
  std::map<const Value*, std::pair<int, int>> life;
  int last = static_cast<int>(groups.size());
  for (const Value* in : g.inputs()) life[in] = {-1, last};
  for (int k = 0; k < static_cast<int>(groups.size()); ++k) {
    for (const Value* out : groups[k].outputs) life[out] = {k, k};
    for (const Value* in : groups[k].inputs) {
      if (life.count(in)) life[in].second = std::max(life[in].second, k);
    }
  }
  for (const Value* out : g.outputs()) life[out] = {-1, last};
  return life;
}

// For each input of an in-place Concat: the Concat's output and the input's offset in it.
std::map<const Value*, std::pair<const Value*, int64_t>> inPlaceInputs(const ir::Graph& g) {
  std::map<const Value*, std::pair<const Value*, int64_t>> in;
  for (const ir::Node* n : g.nodes()) {
    if (n->op != "Concat" || n->attrs.getInt("kiln.in_place", 0) == 0) continue;
    int64_t offset = 0;
    for (const Value* v : n->inputs) {
      in[v] = {n->outputs[0], offset};
      offset += bytesOf(v);
    }
  }
  return in;
}

void checkPlan(const ir::Graph& g, const std::vector<ir::FusedGroup>& groups,
               const MemoryPlan& plan) {
  auto life = lifetimes(g, groups);
  auto inPlace = inPlaceInputs(g);
  // An in-place input lies inside its Concat's output, which is live as long as any part of it.
  for (const auto& [in, where] : inPlace) {
    const StorageSlot& si = plan.slots.at(in);
    const StorageSlot& so = plan.slots.at(where.first);
    EXPECT_EQ(si.storage, so.storage) << in->name;
    EXPECT_EQ(si.offset, so.offset + where.second) << in->name;
    life[where.first].first = std::min(life[where.first].first, life[in].first);
    life[where.first].second = std::max(life[where.first].second, life[in].second);
  }
  auto related = [&](const Value* a, const Value* b) {
    auto ia = inPlace.find(a), ib = inPlace.find(b);
    return (ia != inPlace.end() && ia->second.first == b) ||
           (ib != inPlace.end() && ib->second.first == a);
  };
  for (const auto& [v, span] : life) {
    ASSERT_TRUE(plan.slots.count(v)) << v->name << " has no slot";
    const StorageSlot& s = plan.slots.at(v);
    ASSERT_GE(s.storage, 0);
    ASSERT_LT(s.storage, static_cast<int>(plan.storageSizes.size()));
    EXPECT_EQ(s.offset % 64, 0) << v->name;
    EXPECT_LE(s.offset + bytesOf(v), plan.storageSizes[s.storage]) << v->name;
  }
  std::set<const Value*> pinned(g.inputs().begin(), g.inputs().end());
  pinned.insert(g.outputs().begin(), g.outputs().end());
  for (const auto& [a, la] : life) {
    for (const auto& [b, lb] : life) {
      if (a >= b) continue;
      const StorageSlot& sa = plan.slots.at(a);
      const StorageSlot& sb = plan.slots.at(b);
      if (sa.storage != sb.storage || related(a, b)) continue;
      bool sameConcat =
          inPlace.count(a) && inPlace.count(b) && inPlace.at(a).first == inPlace.at(b).first;
      EXPECT_FALSE(!sameConcat && (pinned.count(a) || pinned.count(b)))
          << a->name << " and " << b->name << " share a storage, and one is a graph input/output";
      bool timeOverlap = la.first <= lb.second && lb.first <= la.second;
      bool byteOverlap = sa.offset < sb.offset + bytesOf(b) && sb.offset < sa.offset + bytesOf(a);
      EXPECT_FALSE(timeOverlap && byteOverlap) << a->name << " and " << b->name;
    }
  }
  for (const Value* c : g.constants()) EXPECT_FALSE(plan.slots.count(c)) << c->name;
}

TEST(PlanMemory, RandomGraphsNeverOverlapLiveTensors) {
  std::mt19937 rng(20240611);
  int reused = 0, inPlace = 0;
  for (int trial = 0; trial < 300; ++trial) {
    auto g = randomGraph(rng);
    if (trial % 2) {
      fuseOps(*g);
      concatInPlace(*g);
    }
    auto groups = ir::collectGroups(*g);
    MemoryPlan plan = planMemory(*g, groups);
    checkPlan(*g, groups, plan);
    if (plan.storageSizes.size() < plan.slots.size()) ++reused;
    inPlace += inPlaceInputs(*g).empty() ? 0 : 1;
    if (testing::Test::HasFailure()) {
      ADD_FAILURE() << "trial " << trial;
      return;
    }
  }
  EXPECT_GT(reused, 50) << "random graphs should often reuse storage";
  EXPECT_GT(inPlace, 3) << "some random graphs should have in-place Concats";
}

TEST(PlanMemory, ChainReusesTwoStorages) {
  auto g = ir::parseGraph(R"(
    graph main(%x: float32[8,16]) {
      %a = Relu(%x)
      %b = Neg(%a)
      %c = Relu(%b)
      %d = Neg(%c)
      %e = Relu(%d)
      %f = Neg(%e)
      return %f
    })");
  auto groups = ir::collectGroups(*g);  // unfused: one group per node
  ASSERT_EQ(groups.size(), 6u);
  MemoryPlan plan = planMemory(*g, groups);
  checkPlan(*g, groups, plan);
  // x and f have their own; a..e alternate between two storages.
  EXPECT_EQ(plan.storageSizes.size(), 4u);
  std::set<int> inner;
  for (const char* name : {"a", "b", "c", "d", "e"})
    inner.insert(plan.slots.at(g->findValue(name)).storage);
  EXPECT_EQ(inner.size(), 2u);
  EXPECT_EQ(plan.slots.at(g->findValue("a")).storage, plan.slots.at(g->findValue("c")).storage);
}

TEST(PlanMemory, BestFitPicksTheSmallestFreeStorage) {
  auto g = ir::parseGraph(R"(
    graph main(%x: float32[4,16]) {
      %big = Concat(%x, %x, %x, %x) {axis=0}
      %small = Relu(%x)
      %d = MatMul(%small, %big)
      %c = Relu(%d)
      %v = Neg(%c)
      return %v
    })");
  auto groups = ir::collectGroups(*g);
  MemoryPlan plan = planMemory(*g, groups);
  checkPlan(*g, groups, plan);
  // When c (64 floats) is planned, the storages of big (256 floats) and small (64) are free:
  // c must take small's.
  EXPECT_EQ(plan.slots.at(g->findValue("c")).storage, plan.slots.at(g->findValue("small")).storage);
  EXPECT_EQ(plan.storageSizes[plan.slots.at(g->findValue("big")).storage], 1024);
}

TEST(PlanMemory, InputsAndOutputsNeverShared) {
  auto g = ir::parseGraph(R"(
    graph main(%x: float32[64], %z: float32[64]) {
      %a = Relu(%x)
      %y1 = Neg(%a)
      %b = Relu(%z)
      %y2 = Neg(%b)
      return %y1, %y2, %a
    })");
  auto groups = ir::collectGroups(*g);
  MemoryPlan plan = planMemory(*g, groups);
  checkPlan(*g, groups, plan);
  std::set<int> storages;
  for (const char* name : {"x", "z", "y1", "y2", "a"}) {
    EXPECT_TRUE(storages.insert(plan.slots.at(g->findValue(name)).storage).second) << name;
  }
}

}  // namespace
}  // namespace kiln::transform
