// The reductions beyond Sum/Mean/Max end to end (ReduceMin/Prod/L1/L2/LogSum/LogSumExp/SumSquare,
// ArgMax/ArgMin, GlobalLpPool), on random shapes and axes, against the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "reference.h"

namespace kiln::optest {
namespace {

// A random shape of rank 1..4 (dims 1..7) and a random non-empty subset of its axes, some of them
// negative, in random order.
std::pair<Shape, Dims> randomCase(std::mt19937& rng) {
  Shape s(std::uniform_int_distribution<size_t>(1, 4)(rng));
  for (int64_t& d : s) d = std::uniform_int_distribution<int64_t>(1, 7)(rng);
  auto rank = static_cast<int64_t>(s.size());
  Dims axes;
  for (int64_t a = 0; a < rank; ++a) {
    if (rng() % 2) axes.push_back(rng() % 2 ? a : a - rank);
  }
  if (axes.empty()) axes.push_back(static_cast<int64_t>(rng() % rank));
  std::shuffle(axes.begin(), axes.end(), rng);
  return {s, axes};
}

TEST(ReduceOps, RandomAxesBothForms) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(17);
    uint32_t seed = 1;
    for (const char* op : {"ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                           "ReduceLogSumExp", "ReduceSumSquare"}) {
      bool positive = std::string(op) == "ReduceLogSum";
      bool prod = std::string(op) == "ReduceProd";
      for (int k = 0; k < 3; ++k) {
        auto [s, axes] = randomCase(rng);
        bool keep = k != 1;
        HostTensor x = randomTensor(s, seed++, positive || prod ? 0.5 : -3.0, positive ? 3 : 1.5);
        std::string what = strCat(op, " ", runtime::shapeStr(s), " keep=", keep);
        // Axes as an attribute (opset < 18) and as a constant input (opset 18).
        ir::Attrs a = attrs({{"keepdims", int64_t{keep}}});
        if (k == 2) {
          what += " all axes";
          axes.clear();
        } else {
          a.set("axes", axes);
        }
        g.expect(g.node(op, {g.input(x)}, a), refReduceOp(x, op, axes, keep), what + " attr");
        if (axes.empty()) continue;
        std::vector<double> av(axes.begin(), axes.end());
        ir::Value* axesIn = g.constant(ints({static_cast<int64_t>(axes.size())}, av));
        g.expect(g.node(op, {g.input(x), axesIn}, attrs({{"keepdims", int64_t{keep}}})),
                 refReduceOp(x, op, axes, keep), what + " input");
      }
    }
  });
}

TEST(ReduceOps, LargeRowsAndIntegers) {
  checkAtAllLevels([](OpGraph& g) {
    // A long trailing block (vectorized partials) and a strided reduction (tiled inner dims).
    HostTensor x = randomTensor({3, 2000}, 40, -1, 1);
    g.expect(g.node("ReduceL2", {g.input(x)}, attrs({{"axes", Dims{1}}})),
             refReduceOp(x, "ReduceL2", {1}, true), "ReduceL2 long rows");
    HostTensor y = randomTensor({50, 3, 300}, 41, -2, 2);
    g.expect(g.node("ReduceMin", {g.input(y)}, attrs({{"axes", Dims{0}}})),
             refReduceOp(y, "ReduceMin", {0}, true), "ReduceMin strided");
    HostTensor i = randomTensor({4, 6}, 42, -9, 9, DataType::int64());
    for (const char* op : {"ReduceMin", "ReduceProd", "ReduceL1", "ReduceSumSquare"}) {
      g.expect(g.node(op, {g.input(i)}, attrs({{"axes", Dims{1}}, {"keepdims", int64_t{0}}})),
               refReduceOp(i, op, {1}, false), strCat(op, " int64"));
    }
  });
}

// exp(100) overflows float32: the kernel must shift by the maximum like the reference does.
TEST(ReduceOps, LogSumExpOfLargeInputs) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({3, 4, 50}, 80, 80, 200);
    for (Dims axes : {Dims{2}, Dims{1}, Dims{0, 2}, Dims{}}) {
      ir::Attrs a = attrs({{"keepdims", int64_t{0}}});
      if (!axes.empty()) a.set("axes", axes);
      g.expect(g.node("ReduceLogSumExp", {g.input(x)}, a),
               refReduceOp(x, "ReduceLogSumExp", axes, false),
               strCat("ReduceLogSumExp large, axes=", axes.size() ? axes[0] : -1, "..."));
    }
    // A row of -inf has no finite maximum to shift by: log(0) = -inf, not NaN (the tolerance,
    // scaled by |-inf|, accepts any number but NaN).
    HostTensor y = ints({2, 2}, {-INFINITY, -INFINITY, -INFINITY, 0.0}, DataType::float32());
    g.expect(g.node("ReduceLogSumExp", {g.input(y)}, attrs({{"axes", Dims{1}}})),
             ints({2, 1}, {-INFINITY, 0.0}, DataType::float32()), "ReduceLogSumExp of -inf");
  });
}

TEST(ReduceOps, ArgMaxArgMin) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(23);
    uint32_t seed = 60;
    for (bool isMax : {true, false}) {
      for (int k = 0; k < 4; ++k) {
        auto [s, axes] = randomCase(rng);
        int64_t axis = axes[0];
        bool keep = k % 2 == 0, last = k >= 2;
        // Few distinct integer values, so ties decide between first and last index.
        HostTensor x =
            randomTensor(s, seed++, 0, 3, k == 3 ? DataType::int64() : DataType::float32());
        const char* op = isMax ? "ArgMax" : "ArgMin";
        g.expect(
            g.node(op, {g.input(x)},
                   attrs({{"axis", axis},
                          {"keepdims", int64_t{keep}},
                          {"select_last_index", int64_t{last}}})),
            refArgReduce(x, isMax, axis, keep, last),
            strCat(op, " ", runtime::shapeStr(s), " axis=", axis, " keep=", keep, " last=", last));
      }
    }
  });
}

TEST(ReduceOps, GlobalLpPool) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({2, 3, 5, 4}, 70);
    g.expect(g.node("GlobalLpPool", {g.input(x)}), refGlobalLpPool(x, 2), "GlobalLpPool p=2");
    HostTensor y = randomTensor({1, 4, 9}, 71);
    g.expect(g.node("GlobalLpPool", {g.input(y)}, attrs({{"p", int64_t{3}}})),
             refGlobalLpPool(y, 3), "GlobalLpPool p=3 1-D");
  });
}

}  // namespace
}  // namespace kiln::optest
