// Normalizations and Hardmax end to end: LayerNormalization (every axis, with and without bias),
// InstanceNormalization, LRN (odd and even sizes) and Hardmax, on random shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reference.h"

namespace kiln::optest {
namespace {

Shape randomShape(std::mt19937& rng, size_t minRank, size_t maxRank) {
  Shape s(std::uniform_int_distribution<size_t>(minRank, maxRank)(rng));
  for (int64_t& d : s) d = std::uniform_int_distribution<int64_t>(1, 6)(rng);
  return s;
}

TEST(Normalization, LayerNormEveryAxis) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(31);
    uint32_t seed = 1;
    for (int k = 0; k < 4; ++k) {
      Shape s = randomShape(rng, 2, 4);
      auto rank = static_cast<int64_t>(s.size());
      for (int64_t axis = -rank; axis < rank; axis += 1 + k % 2) {
        auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
        Shape row(s.begin() + static_cast<std::ptrdiff_t>(a), s.end());
        HostTensor x = randomTensor(s, seed++, -2, 2);
        HostTensor scale = randomTensor(row, seed++, 0.5, 1.5), bias = randomTensor(row, seed++);
        bool withBias = (seed % 2) == 0;
        std::vector<ir::Value*> ins{g.input(x), g.constant(scale)};
        if (withBias) ins.push_back(g.constant(bias));
        double eps = k == 3 ? 1e-2 : 1e-5;
        g.expect(g.node("LayerNormalization", ins, attrs({{"axis", axis}, {"epsilon", eps}})),
                 refLayerNorm(x, scale, withBias ? &bias : nullptr, axis, eps),
                 strCat("LayerNorm ", runtime::shapeStr(s), " axis=", axis, " bias=", withBias));
      }
    }
  });
}

TEST(Normalization, LayerNormBroadcastScaleAndLongRows) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({4, 3, 600}, 50, -3, 3);
    HostTensor scale = randomTensor({600}, 51, 0.5, 1.5), bias = randomTensor({1}, 52);
    g.expect(g.node("LayerNormalization", {g.input(x), g.constant(scale), g.constant(bias)}),
             refLayerNorm(x, scale, &bias, -1, 1e-5), "LayerNorm long rows, scalar-like bias");
    HostTensor s2 = randomTensor({3, 1}, 53, 0.5, 1.5);
    g.expect(
        g.node("LayerNormalization", {g.input(x), g.constant(s2)}, attrs({{"axis", int64_t{1}}})),
        refLayerNorm(x, s2, nullptr, 1, 1e-5), "LayerNorm scale broadcast over the row");
  });
}

TEST(Normalization, InstanceNorm) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(37);
    uint32_t seed = 80;
    for (int k = 0; k < 4; ++k) {
      Shape s = randomShape(rng, 3, 5);
      HostTensor x = randomTensor(s, seed++, -2, 2);
      HostTensor scale = randomTensor({s[1]}, seed++), bias = randomTensor({s[1]}, seed++);
      double eps = k == 0 ? 1e-2 : 1e-5;
      g.expect(g.node("InstanceNormalization", {g.input(x), g.constant(scale), g.constant(bias)},
                      attrs({{"epsilon", eps}})),
               refInstanceNorm(x, scale, bias, eps), strCat("InstanceNorm ", runtime::shapeStr(s)));
    }
  });
}

TEST(Normalization, Lrn) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(41);
    uint32_t seed = 120;
    for (int64_t size : {1, 2, 3, 4, 5}) {
      Shape s = randomShape(rng, 3, 4);
      s[1] = 7;
      HostTensor x = randomTensor(s, seed++, -2, 2);
      g.expect(g.node("LRN", {g.input(x)},
                      attrs({{"size", size}, {"alpha", 0.02}, {"beta", 0.6}, {"bias", 1.5}})),
               refLrn(x, size, 0.02, 0.6, 1.5), strCat("LRN size=", size));
    }
    HostTensor x = randomTensor({2, 5, 3, 3}, 130, -2, 2);
    g.expect(g.node("LRN", {g.input(x)}, attrs({{"size", int64_t{3}}})),
             refLrn(x, 3, 1e-4, 0.75, 1.0), "LRN defaults");
  });
}

// LRN reads neighbouring channels, so it must not run in Conv's epilogue (which sees one element
// at a time): the AlexNet pattern Conv -> Relu -> LRN.
TEST(Normalization, LrnAfterConvRelu) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({1, 4, 5, 5}, 140, -2, 2), w = randomTensor({6, 4, 1, 1}, 141);
    ir::Value* r = g.node("Relu", {g.node("Conv", {g.input(x), g.constant(w)})});
    WindowParams p{{1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
    HostTensor relu =
        refUnary(refConv(x, w, nullptr, p, 1), [](double v) { return std::max(v, 0.0); });
    g.expect(g.node("LRN", {r}, attrs({{"size", int64_t{3}}, {"alpha", 0.5}})),
             refLrn(relu, 3, 0.5, 0.75, 1.0), "Conv+Relu+LRN");
  });
}

TEST(Normalization, HardmaxEveryAxis) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(43);
    uint32_t seed = 150;
    for (int k = 0; k < 3; ++k) {
      Shape s = randomShape(rng, 1, 4);
      auto rank = static_cast<int64_t>(s.size());
      for (int64_t axis = -1; axis < rank; ++axis) {
        // Integer-valued floats, so ties (first maximum wins) are common.
        HostTensor x = randomTensor(s, seed++, 0, 3, DataType::int64());
        x.dtype = DataType::float32();
        g.expect(g.node("Hardmax", {g.input(x)}, attrs({{"axis", axis}})), refHardmax(x, axis),
                 strCat("Hardmax ", runtime::shapeStr(s), " axis=", axis));
      }
    }
  });
}

// LayerNorm spelled out as opset-13 exporters write it (fuse-layer-norm makes it one node at -O3),
// with a GELU after a MatMul (a DAG epilogue at -O3), against the references.
TEST(Normalization, DecomposedLayerNormAndGelu) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({3, 5, 40}, 90, -2, 2);
    HostTensor scale = randomTensor({40}, 91), bias = randomTensor({40}, 92);
    auto scalar = [&](double v) { return g.constant(HostTensor{{}, DataType::float32(), {v}}); };
    ir::Value* xv = g.input(x);
    ir::Value* mean = g.node("ReduceMean", {xv}, attrs({{"axes", Dims{-1}}}));
    ir::Value* d = g.node("Sub", {xv, mean});
    ir::Value* var =
        g.node("ReduceMean", {g.node("Pow", {d, scalar(2)})}, attrs({{"axes", Dims{-1}}}));
    ir::Value* norm = g.node("Div", {d, g.node("Sqrt", {g.node("Add", {var, scalar(1e-5)})})});
    ir::Value* y = g.node("Add", {g.node("Mul", {norm, g.constant(scale)}), g.constant(bias)});
    HostTensor want = refLayerNorm(x, scale, &bias, -1, 1e-5);
    g.expect(y, want, "decomposed LayerNorm");

    HostTensor w = randomTensor({40, 24}, 93);
    ir::Value* m = g.node("MatMul", {y, g.constant(w)});
    ir::Value* erf = g.node("Erf", {g.node("Div", {m, scalar(std::sqrt(2.0))})});
    ir::Value* gelu =
        g.node("Mul", {g.node("Mul", {m, g.node("Add", {erf, scalar(1)})}), scalar(0.5)});
    HostTensor mm = refMatMul(want, w);
    g.expect(gelu,
             refUnary(mm, [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }),
             "MatMul then GELU");
  });
}

}  // namespace
}  // namespace kiln::optest
