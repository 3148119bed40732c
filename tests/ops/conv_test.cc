// Conv end to end: random configurations (groups, depthwise, dilations, strides, asymmetric pads,
// auto_pad) against the reference, at -O3 and -O0.
#include <gtest/gtest.h>

#include <random>

#include "reference.h"

namespace kiln::optest {
namespace {

struct ConvCase {
  int64_t n, ic, oc, group, h, w, kh, kw;
  WindowParams p;
  std::string autoPad = "NOTSET";
  bool bias = true;
};

std::string describe(const ConvCase& c) {
  return strCat("conv n=", c.n, " ic=", c.ic, " oc=", c.oc, " group=", c.group, " in=", c.h, "x",
                c.w, " k=", c.kh, "x", c.kw, " stride=", c.p.strides[0], ",", c.p.strides[1],
                " dil=", c.p.dilations[0], ",", c.p.dilations[1], " pads=", c.p.padsBegin[0], ",",
                c.p.padsBegin[1], ",", c.p.padsEnd[0], ",", c.p.padsEnd[1],
                " auto_pad=", c.autoPad);
}

ConvCase randomConv(std::mt19937& rng, int index) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  ConvCase c{};
  c.n = pick(1, 2);
  int kind = index % 4;  // 0 plain, 1 grouped, 2 depthwise, 3 plain with auto_pad
  c.group = kind == 1 ? 2 : 1;
  c.ic = c.group * pick(1, 4);
  c.oc = c.group * pick(1, 6);
  if (kind == 2) c.group = c.ic = c.oc = pick(2, 8);
  c.kh = std::vector<int64_t>{1, 3, 5}[static_cast<size_t>(pick(0, 2))];
  c.kw = std::vector<int64_t>{1, 2, 3}[static_cast<size_t>(pick(0, 2))];
  c.h = pick(5, 13);
  c.w = pick(5, 13);
  c.p.kernel = {c.kh, c.kw};
  c.p.strides = {pick(1, 2), pick(1, 2)};
  c.p.dilations = {pick(1, 2), pick(1, 2)};
  c.bias = index % 3 != 2;
  if (kind == 3) {
    c.autoPad = std::vector<std::string>{"SAME_UPPER", "SAME_LOWER",
                                         "VALID"}[static_cast<size_t>(index / 4 % 3)];
    if (c.autoPad == "VALID") {
      c.p.padsBegin = c.p.padsEnd = {0, 0};
    } else {
      samePads({c.h, c.w}, c.p, c.autoPad == "SAME_UPPER");
    }
  } else {
    c.p.padsBegin = {pick(0, 2), pick(0, 2)};
    c.p.padsEnd = {pick(0, 2), pick(0, 2)};
  }
  for (size_t d = 0; d < 2; ++d) {
    int64_t in = d == 0 ? c.h : c.w;
    int64_t span = (c.p.kernel[d] - 1) * c.p.dilations[d] + 1;
    if (in + c.p.padsBegin[d] + c.p.padsEnd[d] < span) c.p.dilations[d] = 1;
  }
  return c;
}

void addConv(OpGraph& g, const ConvCase& c, uint32_t seed) {
  HostTensor x = randomTensor({c.n, c.ic, c.h, c.w}, seed);
  HostTensor w = randomTensor({c.oc, c.ic / c.group, c.kh, c.kw}, seed + 1);
  HostTensor b = randomTensor({c.oc}, seed + 2);
  ir::Attrs a = attrs({{"group", c.group},
                       {"strides", c.p.strides},
                       {"dilations", c.p.dilations},
                       {"kernel_shape", Dims{c.kh, c.kw}}});
  if (c.autoPad == "NOTSET") {
    Dims pads = c.p.padsBegin;
    pads.insert(pads.end(), c.p.padsEnd.begin(), c.p.padsEnd.end());
    a.set("pads", pads);
  } else {
    a.set("auto_pad", c.autoPad);
  }
  std::vector<ir::Value*> ins{g.input(x), g.constant(w)};
  if (c.bias) ins.push_back(g.constant(b));
  ir::Value* y = g.node("Conv", ins, a);
  g.expect(y, refConv(x, w, c.bias ? &b : nullptr, c.p, c.group), describe(c));
}

TEST(Conv, RandomConfigurations) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(20240611);
    for (int i = 0; i < 16; ++i)
      addConv(g, randomConv(rng, i), 100 + 10 * static_cast<uint32_t>(i));
  });
}

TEST(Conv, WideChannelsAndRows) {
  checkAtAllLevels([](OpGraph& g) {
    ConvCase c{1, 16, 32, 1, 20, 37, 3, 3, {}, "NOTSET", true};
    c.p = {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
    addConv(g, c, 7);
    ConvCase s{2, 8, 12, 1, 17, 17, 3, 3, {}, "NOTSET", false};
    s.p = {{3, 3}, {2, 2}, {1, 1}, {0, 1}, {1, 0}};
    addConv(g, s, 9);
    ConvCase d{1, 32, 32, 32, 14, 14, 3, 3, {}, "NOTSET", true};
    d.p = {{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};
    addConv(g, d, 11);
  });
}

// Input rows too big to copy into one zero-padded local buffer (channels x width), and edges
// wider than a register tile (huge pads): kernels must still keep every buffer on the stack.
TEST(Conv, ManyInputChannelsAndWideRows) {
  checkAtAllLevels([](OpGraph& g) {
    for (int64_t stride : {1, 2}) {
      ConvCase c{1, 512, 8, 1, 4, 600, 3, 3, {}, "NOTSET", true};
      c.p = {{3, 3}, {stride, stride}, {1, 1}, {1, 1}, {1, 1}};
      addConv(g, c, 30 + static_cast<uint32_t>(stride));
      ConvCase r{1, 4, 6, 1, 3, 3000, 3, 3, {}, "NOTSET", false};
      r.p = {{3, 3}, {stride, stride}, {1, 1}, {1, 1}, {1, 1}};
      addConv(g, r, 40 + static_cast<uint32_t>(stride));
    }
    ConvCase e{1, 2, 4, 1, 3, 10, 1, 3, {}, "NOTSET", true};
    e.p = {{1, 3}, {1, 1}, {1, 1}, {0, 40}, {0, 40}};
    addConv(g, e, 50);
  });
}

TEST(Conv, OneDimensional) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({2, 3, 19}, 1);
    HostTensor w = randomTensor({4, 3, 3}, 2);
    HostTensor b = randomTensor({4}, 3);
    ir::Value* y =
        g.node("Conv", {g.input(x), g.constant(w), g.constant(b)},
               attrs({{"pads", Dims{2, 1}}, {"strides", Dims{2}}, {"dilations", Dims{2}}}));
    WindowParams p{{3}, {2}, {2}, {2}, {1}};
    g.expect(y, refConv(x, w, &b, p, 1), "conv1d");
  });
}

// ConvTranspose with 1, 2 and 3 spatial dims: random strides, dilations, pads, output_padding
// and groups, against the scatter definition.
TEST(ConvTranspose, AnySpatialRank) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(20261203);
    auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    for (int i = 0; i < 12; ++i) {
      size_t nd = 1 + static_cast<size_t>(i % 3);
      int64_t group = pick(1, 2);
      int64_t ic = group * pick(1, 3), ocg = pick(1, 3);
      Shape xs = {pick(1, 2), ic}, ws = {ic, ocg}, out = {xs[0], ocg * group};
      Dims strides, dil, begin, end, outPad;
      for (size_t d = 0; d < nd; ++d) {
        int64_t in = pick(2, 5), k = pick(1, 3), s = pick(1, 3), di = pick(1, 2);
        int64_t pb = pick(0, k - 1), pe = pick(0, k - 1), op = pick(0, std::max(s, di) - 1);
        xs.push_back(in), ws.push_back(k), strides.push_back(s), dil.push_back(di);
        begin.push_back(pb), end.push_back(pe), outPad.push_back(op);
        out.push_back(s * (in - 1) + op + (k - 1) * di + 1 - pb - pe);
      }
      Dims pads = begin;
      pads.insert(pads.end(), end.begin(), end.end());
      auto seed = 200 + 3 * static_cast<uint32_t>(i);
      HostTensor x = randomTensor(xs, seed), w = randomTensor(ws, seed + 1);
      HostTensor b = randomTensor({out[1]}, seed + 2);
      ir::Value* y = g.node("ConvTranspose", {g.input(x), g.constant(w), g.constant(b)},
                            attrs({{"group", group},
                                   {"strides", strides},
                                   {"dilations", dil},
                                   {"pads", pads},
                                   {"output_padding", outPad}}));
      g.expect(y, refConvTranspose(x, w, &b, out, strides, dil, begin, group),
               strCat("conv_transpose x=", runtime::shapeStr(xs), " w=", runtime::shapeStr(ws),
                      " group=", group, " strides=", runtime::shapeStr(strides),
                      " dilations=", runtime::shapeStr(dil), " pads=", runtime::shapeStr(pads),
                      " output_padding=", runtime::shapeStr(outPad)));
    }
  });
}

}  // namespace
}  // namespace kiln::optest
