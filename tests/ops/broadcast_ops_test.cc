// Broadcasting ops with several inputs end to end: comparisons, And/Or/Xor, BitShift, Mod (both
// fmod forms), and the variadic Min/Max/Sum/Mean, on random broadcast-compatible shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "reference.h"

namespace kiln::optest {
namespace {

// Two random shapes that broadcast together: B drops some leading dims of A and has 1s elsewhere.
std::pair<Shape, Shape> broadcastPair(std::mt19937& rng) {
  Shape a(std::uniform_int_distribution<size_t>(1, 4)(rng));
  for (int64_t& d : a) d = std::uniform_int_distribution<int64_t>(1, 6)(rng);
  Shape b(a.begin() + std::uniform_int_distribution<std::ptrdiff_t>(0, 1)(rng), a.end());
  for (int64_t& d : b) d = std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? 1 : d;
  if (rng() % 2) std::swap(a, b);
  return {a, b};
}

double boolOf(bool b) { return b ? 1.0 : 0.0; }

TEST(BroadcastOps, Comparisons) {
  std::vector<std::pair<const char*, std::function<bool(double, double)>>> ops{
      {"Less", std::less<double>()},
      {"Greater", std::greater<double>()},
      {"LessOrEqual", std::less_equal<double>()},
      {"GreaterOrEqual", std::greater_equal<double>()}};
  checkAtAllLevels([&](OpGraph& g) {
    std::mt19937 rng(1);
    uint32_t seed = 1;
    for (const auto& [op, f] : ops) {
      for (DataType t : {DataType::float32(), DataType::int64(), DataType::int32()}) {
        auto [as, bs] = broadcastPair(rng);
        // Small integer ranges make ties (where < and <= differ) common.
        HostTensor a = randomTensor(as, seed++, -3, 3, t), b = randomTensor(bs, seed++, -3, 3, t);
        auto cmp = f;
        g.expect(
            g.node(op, {g.input(a), g.input(b)}),
            refBinary(
                a, b, [cmp](double x, double y) { return boolOf(cmp(x, y)); }, DataType::boolean()),
            strCat(op, " ", t.str(), " ", runtime::shapeStr(as), " ", runtime::shapeStr(bs)));
      }
    }
  });
}

TEST(BroadcastOps, Logical) {
  std::vector<std::pair<const char*, std::function<bool(bool, bool)>>> ops{
      {"And", [](bool x, bool y) { return x && y; }},
      {"Or", [](bool x, bool y) { return x || y; }},
      {"Xor", [](bool x, bool y) { return x != y; }}};
  checkAtAllLevels([&](OpGraph& g) {
    std::mt19937 rng(2);
    uint32_t seed = 50;
    for (const auto& [op, f] : ops) {
      for (int k = 0; k < 3; ++k) {
        auto [as, bs] = broadcastPair(rng);
        HostTensor a = randomTensor(as, seed++, 0, 2, DataType::boolean());
        HostTensor b = randomTensor(bs, seed++, 0, 2, DataType::boolean());
        auto fn = f;
        g.expect(g.node(op, {g.input(a), g.input(b)}),
                 refBinary(
                     a, b, [fn](double x, double y) { return boolOf(fn(x != 0, y != 0)); },
                     DataType::boolean()),
                 strCat(op, " ", runtime::shapeStr(as), " ", runtime::shapeStr(bs)));
      }
    }
  });
}

// Divisors from [-5, 5] without 0.
HostTensor divisors(const Shape& s, uint32_t seed, DataType t) {
  HostTensor d = randomTensor(s, seed, -5, 5, t);
  for (double& v : d.data) v = v == 0 ? 3 : v;
  return d;
}

TEST(BroadcastOps, ModFollowsTheSignRules) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(3);
    uint32_t seed = 100;
    for (int k = 0; k < 3; ++k) {
      auto [as, bs] = broadcastPair(rng);
      HostTensor a = randomTensor(as, seed++, -30, 30, DataType::int64());
      HostTensor b = divisors(bs, seed++, DataType::int64());
      // fmod=0: the result takes the divisor's sign (Python %); fmod=1: the dividend's (C fmod).
      g.expect(g.node("Mod", {g.input(a), g.input(b)}),
               refBinary(
                   a, b, [](double x, double y) { return x - std::floor(x / y) * y; },
                   DataType::int64()),
               strCat("Mod int64 ", runtime::shapeStr(as), " ", runtime::shapeStr(bs)));
      g.expect(g.node("Mod", {g.input(a), g.input(b)}, attrs({{"fmod", int64_t{1}}})),
               refBinary(
                   a, b, [](double x, double y) { return std::fmod(x, y); }, DataType::int64()),
               strCat("Mod fmod int64 ", runtime::shapeStr(as)));
      HostTensor fa = randomTensor(as, seed++, -10, 10), fb = randomTensor(bs, seed++, 0.5, 3);
      g.expect(g.node("Mod", {g.input(fa), g.input(fb)}, attrs({{"fmod", int64_t{1}}})),
               rounded(refBinary(fa, fb, [](double x, double y) { return std::fmod(x, y); })),
               strCat("Mod fmod float ", runtime::shapeStr(as)), 1e-5);
    }
  });
}

// Shifts of every unsigned width, broadcast, including shifts by the width or more (0); the
// expected values are written out independently of kiln's reference.
TEST(BroadcastOps, BitShiftBothDirections) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(5);
    uint32_t seed = 200;
    for (const char* name : {"uint8", "uint16", "uint32", "uint64"}) {
      DataType t = DataType::parse(name);
      auto [as, bs] = broadcastPair(rng);
      HostTensor a = randomTensor(as, seed++, 0, 250, t);
      HostTensor b = randomTensor(bs, seed++, 0, t.bits + 3, t);
      for (const char* direction : {"LEFT", "RIGHT"}) {
        bool left = std::string(direction) == "LEFT";
        auto want = [left, bits = t.bits](double x, double y) {
          if (y >= bits) return 0.0;
          double shifted = left ? x * std::pow(2.0, y) : std::floor(x / std::pow(2.0, y));
          return std::fmod(shifted, std::pow(2.0, bits));
        };
        g.expect(g.node("BitShift", {g.input(a), g.input(b)},
                        attrs({{"direction", std::string(direction)}})),
                 refBinary(a, b, want, t),
                 strCat("BitShift ", direction, " ", t.str(), " ", runtime::shapeStr(as), " ",
                        runtime::shapeStr(bs)));
      }
    }
  });
}

TEST(BroadcastOps, IntegerDivisionByZeroAndMinusOneDoesNotTrap) {
  // Divisors computed at run time may be 0 (or -1 against INT_MIN): the process must survive and
  // give NumPy's answers: x/0 = 0, x%0 = 0, x/-1 = -x.
  checkAtAllLevels([](OpGraph& g) {
    for (DataType t : {DataType::int32(), DataType::int64()}) {
      double lowest = t.bits == 32 ? -2147483648.0 : -9223372036854775808.0;
      HostTensor a = ints({6}, {7, -7, 0, lowest, 9, -9}, t);
      HostTensor b = ints({6}, {0, 0, 0, -1, -1, 2}, t);
      HostTensor div = ints({6}, {0, 0, 0, lowest, -9, -4}, t);
      HostTensor mod = ints({6}, {0, 0, 0, 0, 0, 1}, t);
      g.expect(g.node("Div", {g.input(a), g.input(b)}), div, "Div " + t.str());
      g.expect(g.node("Mod", {g.input(a), g.input(b)}), mod, "Mod " + t.str());
    }
  });
}

TEST(BroadcastOps, VariadicMinMaxSumMean) {
  struct Op {
    const char* name;
    std::function<double(const std::vector<double>&)> f;
  };
  std::vector<Op> ops{
      {"Min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }},
      {"Max", [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }},
      {"Sum",
       [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }},
      {"Mean", [](const std::vector<double>& v) {
         return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
       }}};
  checkAtAllLevels([&](OpGraph& g) {
    std::mt19937 rng(4);
    uint32_t seed = 200;
    for (const Op& op : ops) {
      for (size_t count : {1, 2, 3}) {
        auto [as, bs] = broadcastPair(rng);
        std::vector<HostTensor> xs;
        for (size_t i = 0; i < count; ++i) xs.push_back(randomTensor(i % 2 ? bs : as, seed++));
        std::vector<const HostTensor*> ptrs;
        std::vector<ir::Value*> ins;
        for (const HostTensor& x : xs) ptrs.push_back(&x), ins.push_back(g.input(x));
        g.expect(
            g.node(op.name, ins), rounded(refNary(ptrs, op.f, DataType::float32())),
            strCat(op.name, " of ", count, " ", runtime::shapeStr(as), " ", runtime::shapeStr(bs)));
      }
    }
    HostTensor a = randomTensor({4, 5}, seed++, -50, 50, DataType::int64());
    HostTensor b = randomTensor({5}, seed++, -50, 50, DataType::int64());
    for (const Op& op : {ops[0], ops[1], ops[2]}) {
      g.expect(g.node(op.name, {g.input(a), g.input(b)}),
               refNary({&a, &b}, op.f, DataType::int64()), strCat(op.name, " int64"));
    }
  });
}

}  // namespace
}  // namespace kiln::optest
