// Pooling end to end: MaxPool and AveragePool (pads, strides, dilations, ceil_mode,
// count_include_pad, auto_pad) and the global pools, against the reference.
#include <gtest/gtest.h>

#include <random>

#include "reference.h"

namespace kiln::optest {
namespace {

struct PoolCase {
  Shape x;
  WindowParams p;
  PoolKind kind;
  bool includePad = false;
  std::string autoPad = "NOTSET";
};

void addPool(OpGraph& g, const PoolCase& c, uint32_t seed) {
  HostTensor x = randomTensor(c.x, seed);
  ir::Attrs a = attrs({{"kernel_shape", c.p.kernel}, {"strides", c.p.strides}});
  if (c.kind == PoolKind::kMax || c.p.dilations != Dims(c.p.kernel.size(), 1)) {
    a.set("dilations", c.p.dilations);
  }
  if (c.p.ceilMode) a.set("ceil_mode", int64_t{1});
  if (c.kind == PoolKind::kAverage) a.set("count_include_pad", int64_t{c.includePad ? 1 : 0});
  if (c.autoPad == "NOTSET") {
    Dims pads = c.p.padsBegin;
    pads.insert(pads.end(), c.p.padsEnd.begin(), c.p.padsEnd.end());
    a.set("pads", pads);
  } else {
    a.set("auto_pad", c.autoPad);
  }
  const char* op = c.kind == PoolKind::kMax ? "MaxPool" : "AveragePool";
  ir::Value* y = g.node(op, {g.input(x)}, a);
  std::string label =
      strCat(op, " x=", runtime::shapeStr(c.x), " k=", c.p.kernel[0], "x", c.p.kernel.back(),
             " s=", c.p.strides[0], " d=", c.p.dilations[0], " pads=", c.p.padsBegin[0], ",",
             c.p.padsEnd[0], " ceil=", c.p.ceilMode, " include_pad=", c.includePad,
             " auto_pad=", c.autoPad);
  g.expect(y, refPool(x, c.p, c.kind, c.includePad), label);
}

PoolCase randomPool(std::mt19937& rng, int index) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  PoolCase c{};
  c.kind = index % 2 == 0 ? PoolKind::kMax : PoolKind::kAverage;
  c.x = {pick(1, 2), pick(1, 5), pick(6, 15), pick(6, 15)};
  c.p.kernel = {pick(1, 3), pick(2, 4)};
  c.p.strides = {pick(1, 3), pick(1, 2)};
  c.p.dilations = c.kind == PoolKind::kMax ? Dims{pick(1, 2), pick(1, 2)} : Dims{1, 1};
  c.p.ceilMode = index % 3 == 1;
  c.includePad = index % 4 == 1;
  c.p.padsBegin = {std::min(pick(0, 2), c.p.kernel[0] - 1),
                   std::min(pick(0, 2), c.p.kernel[1] - 1)};
  c.p.padsEnd = {std::min(pick(0, 2), c.p.kernel[0] - 1), std::min(pick(0, 2), c.p.kernel[1] - 1)};
  if (index % 5 == 4) {
    c.autoPad = index % 2 == 0 ? "SAME_UPPER" : "SAME_LOWER";
    c.p.ceilMode = false;
    samePads({c.x[2], c.x[3]}, c.p, c.autoPad == "SAME_UPPER");
  }
  return c;
}

TEST(Pool, RandomConfigurations) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(777);
    for (int i = 0; i < 20; ++i) addPool(g, randomPool(rng, i), 300 + static_cast<uint32_t>(i));
  });
}

TEST(Pool, ResNetStemMaxPool) {
  checkAtAllLevels([](OpGraph& g) {
    PoolCase c{{1, 8, 28, 28}, {{3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}}, PoolKind::kMax};
    addPool(g, c, 5);
  });
}

TEST(Pool, OneDimensional) {
  checkAtAllLevels([](OpGraph& g) {
    PoolCase c{{2, 3, 17}, {{3}, {2}, {1}, {1}, {0}}, PoolKind::kAverage, true};
    addPool(g, c, 6);
  });
}

// Output rows far wider than one local buffer (kMaxLocalBufferBytes): the kernels tile the row
// accumulator instead of allocating it on the heap.
TEST(Pool, VeryWideRows) {
  checkAtAllLevels([](OpGraph& g) {
    addPool(g, {{1, 2, 100000}, {{3}, {1}, {1}, {1}, {1}}, PoolKind::kMax}, 21);
    addPool(g, {{1, 2, 100000}, {{4}, {2}, {1}, {1}, {2}}, PoolKind::kAverage, true}, 22);
    addPool(g, {{1, 2, 100000}, {{5}, {1}, {1}, {2}, {2}}, PoolKind::kAverage, false}, 23);
    addPool(g, {{1, 3, 8, 50000}, {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, PoolKind::kMax}, 24);
    addPool(g, {{1, 3, 8, 50000}, {{2, 3}, {2, 1}, {1, 1}, {0, 1}, {0, 1}}, PoolKind::kAverage},
            25);
  });
}

TEST(Pool, GlobalPools) {
  checkAtAllLevels([](OpGraph& g) {
    for (Shape s : {Shape{2, 3, 7, 7}, Shape{1, 64, 14, 14}, Shape{1, 5, 1, 1}, Shape{2, 3, 11}}) {
      HostTensor x = randomTensor(s, static_cast<uint32_t>(s[1]));
      g.expect(g.node("GlobalAveragePool", {g.input(x)}), refGlobalPool(x, PoolKind::kAverage),
               "GlobalAveragePool " + runtime::shapeStr(s));
      g.expect(g.node("GlobalMaxPool", {g.input(x)}), refGlobalPool(x, PoolKind::kMax),
               "GlobalMaxPool " + runtime::shapeStr(s));
    }
  });
}

}  // namespace
}  // namespace kiln::optest
