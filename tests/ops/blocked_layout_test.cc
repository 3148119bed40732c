// Conv chains end to end in the channel-blocked layout: convert-layout turns them into blocked
// convs, pools, elementwise ops and concats (at -O3; -O0 runs the plain NCHW kernels), with
// channel counts that are and are not multiples of the block, against the references.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

#include "reference.h"

namespace kiln::optest {
namespace {

// A value of the graph under construction together with its expected contents.
struct Tracked {
  ir::Value* value;
  HostTensor ref;
};

class Chain {
 public:
  Chain(OpGraph& g, uint32_t seed) : g_(g), seed_(seed) {}

  Tracked input(const Shape& shape) {
    HostTensor x = randomTensor(shape, next());
    return {g_.input(x), x};
  }

  Tracked conv(const Tracked& x, int64_t oc, int64_t k, int64_t stride, int64_t pad,
               int64_t group = 1, bool bias = true) {
    int64_t ic = x.ref.shape[1];
    HostTensor w = randomTensor({oc, ic / group, k, k}, next(), -0.5, 0.5);
    HostTensor b = randomTensor({oc}, next());
    WindowParams p{{k, k}, {stride, stride}, {1, 1}, {pad, pad}, {pad, pad}};
    std::vector<ir::Value*> ins{x.value, g_.constant(w)};
    if (bias) ins.push_back(g_.constant(b));
    ir::Value* y = g_.node("Conv", ins,
                           attrs({{"kernel_shape", Dims{k, k}},
                                  {"strides", Dims{stride, stride}},
                                  {"pads", Dims{pad, pad, pad, pad}},
                                  {"group", group}}));
    return {y, refConv(x.ref, w, bias ? &b : nullptr, p, group)};
  }

  Tracked depthwise(const Tracked& x, int64_t k, int64_t stride, int64_t pad) {
    return conv(x, x.ref.shape[1], k, stride, pad, x.ref.shape[1]);
  }

  Tracked unary(const Tracked& x, const std::string& op, const std::function<double(double)>& f,
                ir::Attrs a = {}) {
    return {g_.node(op, {x.value}, std::move(a)), refUnary(x.ref, f)};
  }

  Tracked relu(const Tracked& x) {
    return unary(x, "Relu", [](double v) { return std::max(v, 0.0); });
  }

  Tracked binary(const Tracked& a, const Tracked& b, const std::string& op,
                 const std::function<double(double, double)>& f) {
    return {g_.node(op, {a.value, b.value}), refBinary(a.ref, b.ref, f)};
  }

  // A per-channel constant [C, 1, 1] (values in [LO, HI)).
  Tracked channelConstant(int64_t channels, double lo, double hi) {
    HostTensor c = randomTensor({channels, 1, 1}, next(), lo, hi);
    return {g_.constant(c), c};
  }

  Tracked pool(const Tracked& x, PoolKind kind, int64_t k, int64_t stride, int64_t pad,
               bool ceil = false, bool includePad = false) {
    WindowParams p{{k, k}, {stride, stride}, {1, 1}, {pad, pad}, {pad, pad}, ceil};
    ir::Attrs a = attrs({{"kernel_shape", Dims{k, k}},
                         {"strides", Dims{stride, stride}},
                         {"pads", Dims{pad, pad, pad, pad}},
                         {"ceil_mode", int64_t{ceil ? 1 : 0}}});
    if (kind == PoolKind::kAverage) a.set("count_include_pad", int64_t{includePad ? 1 : 0});
    return {g_.node(kind == PoolKind::kMax ? "MaxPool" : "AveragePool", {x.value}, a),
            refPool(x.ref, p, kind, includePad)};
  }

  Tracked globalPool(const Tracked& x, PoolKind kind) {
    return {g_.node(kind == PoolKind::kMax ? "GlobalMaxPool" : "GlobalAveragePool", {x.value}),
            refGlobalPool(x.ref, kind)};
  }

  Tracked concat(const std::vector<Tracked>& xs) {
    std::vector<ir::Value*> values;
    std::vector<const HostTensor*> refs;
    for (const Tracked& t : xs) {
      values.push_back(t.value);
      refs.push_back(&t.ref);
    }
    return {g_.node("Concat", values, attrs({{"axis", int64_t{1}}})), refConcat(refs, 1)};
  }

  void expect(const Tracked& t, const std::string& label) { g_.expect(t.value, t.ref, label); }

 private:
  uint32_t next() { return seed_++; }

  OpGraph& g_;
  uint32_t seed_;
};

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }
double hardSwish(double v) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); }

// A small network: a plain-input stem, a residual block, strided and depthwise convs, pools of
// every kind, a concat of whole blocks, per-channel arithmetic (a divisor among it), and channel
// counts of 3, 24, 40 and 32.
TEST(BlockedLayout, NetworkOfEveryKind) {
  checkAtAllLevels([](OpGraph& g) {
    Chain c(g, 1000);
    Tracked x = c.input({1, 3, 23, 21});
    Tracked stem = c.relu(c.conv(x, 24, 3, 2, 1));
    Tracked mid = c.relu(c.conv(stem, 24, 3, 1, 1));
    Tracked res = c.relu(
        c.binary(c.conv(mid, 24, 3, 1, 1), stem, "Add", [](double a, double b) { return a + b; }));
    Tracked down = c.conv(c.pool(res, PoolKind::kMax, 3, 2, 1), 40, 1, 1, 0);
    Tracked scaled =
        c.binary(c.binary(down, c.channelConstant(40, 1.0, 2.0), "Div",
                          [](double a, double b) { return a / b; }),
                 c.channelConstant(40, -1.0, 1.0), "Sub", [](double a, double b) { return a - b; });
    Tracked hs = c.unary(scaled, "HardSwish", hardSwish);
    Tracked left = c.conv(hs, 16, 1, 1, 0), right = c.conv(hs, 16, 3, 1, 1);
    Tracked cat = c.concat({left, right});
    Tracked dw = c.unary(c.depthwise(cat, 3, 2, 1), "Sigmoid", sigmoid);
    Tracked avg = c.pool(dw, PoolKind::kAverage, 3, 2, 1, true, true);
    c.expect(avg, "average pool of the depthwise branch");
    c.expect(c.globalPool(dw, PoolKind::kMax), "global max pool");
    c.expect(c.globalPool(res, PoolKind::kAverage), "global average pool of the residual");
  });
}

// A divisor computed in the blocked layout would divide the padded channels by zero; the Div
// stays in NCHW, so the conv after it, which reduces over whole blocks, sees finite values.
TEST(BlockedLayout, ComputedDivisor) {
  checkAtAllLevels([](OpGraph& g) {
    Chain c(g, 5000);
    Tracked x = c.input({1, 4, 9, 9});
    Tracked divisor = c.binary(c.conv(x, 20, 1, 1, 0), c.channelConstant(20, 5.0, 6.0), "Add",
                               [](double a, double b) { return a + b; });
    Tracked q =
        c.binary(c.conv(x, 20, 3, 1, 1), divisor, "Div", [](double a, double b) { return a / b; });
    c.expect(c.conv(q, 24, 3, 1, 1), "conv of a quotient of two convs");
  });
}

// Grouped convs whose groups hold whole blocks (ResNeXt-style) run blocked, each tile reducing
// over its own group's input blocks; other grouped convs stay in NCHW.
TEST(BlockedLayout, GroupedConvolutions) {
  checkAtAllLevels([](OpGraph& g) {
    Chain c(g, 4000);
    Tracked x = c.input({1, 64, 9, 11});
    Tracked a = c.relu(c.conv(x, 64, 3, 1, 1, 2));  // 2 groups of 32 channels
    Tracked b = c.conv(a, 128, 1, 1, 0, 4);         // 4 groups: 16 in, 32 out
    c.expect(b, "grouped 3x3 then grouped 1x1");
    Tracked odd = c.conv(c.input({1, 12, 7, 7}), 18, 3, 2, 1, 3);  // groups of 4 in, 6 out
    c.expect(odd, "grouped conv with partial blocks");
  });
}

// The same schedules compile for AArch64 NEON (4-lane blocks, NEON register tiles); the library
// is an AArch64 ELF file. (Running it needs an AArch64 machine or emulator.)
TEST(BlockedLayout, CompilesForAarch64) {
  OpGraph g;
  Chain c(g, 3000);
  Tracked x = c.input({1, 3, 20, 20});
  Tracked a = c.relu(c.conv(x, 24, 3, 2, 1));
  Tracked b = c.depthwise(c.conv(a, 40, 1, 1, 0), 3, 1, 1);
  c.expect(c.globalPool(c.pool(b, PoolKind::kMax, 3, 2, 1), PoolKind::kAverage), "pooled");
  ir::Value* flat = g.node("Flatten", {c.globalPool(b, PoolKind::kMax).value});
  HostTensor w = randomTensor({40, 17}, 3001);
  g.expect(g.node("MatMul", {flat, g.constant(w)}), zeros({1, 17}), "a packed matmul");
  std::string path = g.compileFor("llvm -mtriple=aarch64-linux-gnu");
  std::ifstream in(path, std::ios::binary);
  unsigned char header[20] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  ASSERT_EQ(in.gcount(), 20);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(header) + 1, 3), "ELF");
  EXPECT_EQ(header[18] | (header[19] << 8), 183) << "e_machine is not EM_AARCH64";
}

// Random chains conv -> elementwise -> conv with channel counts around the block size.
TEST(BlockedLayout, RandomChains) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(77);
    auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    for (int i = 0; i < 6; ++i) {
      Chain c(g, 2000 + 100 * static_cast<uint32_t>(i));
      int64_t ic = pick(1, 40), mid = pick(1, 40), oc = pick(1, 40);
      Tracked x = c.input({pick(1, 2), ic, pick(6, 15), pick(6, 15)});
      Tracked a = c.conv(x, mid, std::vector<int64_t>{1, 3, 5}[pick(0, 2)], pick(1, 2), pick(0, 2));
      Tracked b = c.binary(a, c.channelConstant(mid, -1.0, 1.0), "Mul",
                           [](double u, double v) { return u * v; });
      Tracked r = c.unary(
          b, "Clip", [](double v) { return std::clamp(v, 0.0, 6.0); },
          attrs({{"min", 0.0}, {"max", 6.0}}));
      Tracked d = i % 2 == 0 ? c.depthwise(r, 3, 1, 1) : r;
      Tracked y = c.conv(d, oc, std::vector<int64_t>{1, 3}[pick(0, 1)], 1, pick(0, 1));
      c.expect(y, strCat("chain ", i, ": ", ic, " -> ", mid, " -> ", oc, " channels"));
    }
  });
}

}  // namespace
}  // namespace kiln::optest
