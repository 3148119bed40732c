// Fused groups end to end: epilogues of Conv and Gemm (bias, Relu, Clip, residual Add) and an
// elementwise DAG with broadcasting, which fuse-ops groups at -O3 (and -O0 runs unfused).
#include <gtest/gtest.h>

#include <cmath>

#include "reference.h"

namespace kiln::optest {
namespace {

const WindowParams kSame3x3{{3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}};

HostTensor relu(const HostTensor& x) {
  return refUnary(x, [](double v) { return std::max(v, 0.0); });
}

TEST(Fused, ConvBiasRelu) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({1, 8, 12, 12}, 1);
    HostTensor w = randomTensor({16, 8, 3, 3}, 2), b = randomTensor({16}, 3);
    ir::Value* c = g.node("Conv", {g.input(x), g.constant(w), g.constant(b)},
                          attrs({{"pads", Dims{1, 1, 1, 1}}}));
    g.expect(g.node("Relu", {c}), relu(refConv(x, w, &b, kSame3x3, 1)), "Conv+bias+Relu");
  });
}

TEST(Fused, ConvResidualAddRelu) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({2, 8, 10, 10}, 4);
    HostTensor w = randomTensor({8, 8, 3, 3}, 5), b = randomTensor({8}, 6);
    ir::Value* in = g.input(x);
    ir::Value* c =
        g.node("Conv", {in, g.constant(w), g.constant(b)}, attrs({{"pads", Dims{1, 1, 1, 1}}}));
    ir::Value* y = g.node("Relu", {g.node("Add", {c, in})});
    HostTensor want = relu(refBinary(refConv(x, w, &b, kSame3x3, 1), x, std::plus<double>()));
    g.expect(y, want, "Conv+Add(residual)+Relu");
  });
}

TEST(Fused, ConvChannelScaleClip) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({1, 4, 9, 9}, 7);
    HostTensor w = randomTensor({6, 4, 1, 1}, 8);
    HostTensor s = randomTensor({6, 1, 1}, 9, 0.5, 4.0);
    HostTensor lo = ints({}, {0.0}, DataType::float32()), hi = ints({}, {6.0}, DataType::float32());
    ir::Value* c = g.node("Conv", {g.input(x), g.constant(w)});
    ir::Value* m = g.node("Mul", {c, g.constant(s)});
    ir::Value* y = g.node("Clip", {m, g.constant(lo), g.constant(hi)});
    WindowParams p{{1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
    HostTensor want =
        refUnary(refBinary(refConv(x, w, nullptr, p, 1), s, std::multiplies<double>()),
                 [](double v) { return std::clamp(v, 0.0, 6.0); });
    g.expect(y, want, "Conv*scale+Clip");
  });
}

TEST(Fused, GemmRelu) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor a = randomTensor({4, 64}, 10);
    HostTensor b = randomTensor({64, 48}, 11), c = randomTensor({48}, 12);
    ir::Value* y = g.node("Relu", {g.node("Gemm", {g.input(a), g.constant(b), g.constant(c)})});
    g.expect(y, relu(refGemm(a, b, &c, false, false, 1, 1)), "Gemm+Relu");
    HostTensor bt = randomTensor({10, 64}, 13);
    ir::Value* z = g.node(
        "Relu", {g.node("Gemm", {g.input(a), g.constant(bt)}, attrs({{"transB", int64_t{1}}}))});
    g.expect(z, relu(refGemm(a, bt, nullptr, false, true, 1, 1)), "Gemm(transB)+Relu");
  });
}

TEST(Fused, MatMulAddGelu) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor a = randomTensor({2, 5, 16}, 14);
    HostTensor b = randomTensor({16, 24}, 15), bias = randomTensor({24}, 16);
    HostTensor half = ints({}, {0.5}, DataType::float32()),
               one = ints({}, {1.0}, DataType::float32());
    HostTensor rs2 = ints({}, {M_SQRT1_2}, DataType::float32());
    ir::Value* h = g.node("Add", {g.node("MatMul", {g.input(a), g.constant(b)}), g.constant(bias)});
    ir::Value* e = g.node("Erf", {g.node("Mul", {h, g.constant(rs2)})});
    ir::Value* y =
        g.node("Mul", {g.node("Mul", {h, g.constant(half)}), g.node("Add", {e, g.constant(one)})});
    HostTensor hw = refBinary(refMatMul(a, b), bias, std::plus<double>());
    HostTensor want = refUnary(hw, [](double v) {
      double r = static_cast<float>(M_SQRT1_2);
      return 0.5 * v * (1 + std::erf(v * r));
    });
    g.expect(y, want, "MatMul+Add+Gelu(erf)");
  });
}

TEST(Fused, ElementwiseDagWithBroadcasting) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({2, 3, 8}, 17), s = randomTensor({3, 1}, 18),
               t = randomTensor({8}, 19);
    ir::Value* xi = g.input(x);
    ir::Value* si = g.input(s);
    ir::Value* a = g.node("Mul", {xi, si});
    ir::Value* b = g.node("Sigmoid", {g.node("Add", {xi, g.input(t)})});
    ir::Value* y = g.node("Sub", {g.node("Mul", {a, b}), si});
    HostTensor want = refNary(
        {&x, &s, &t},
        [](const std::vector<double>& v) {
          double av = static_cast<float>(v[0] * v[1]);
          double bv = 1 / (1 + std::exp(-static_cast<float>(v[0] + v[2])));
          return av * bv - v[1];
        },
        DataType::float32());
    g.expect(y, want, "elementwise DAG");
  });
}

}  // namespace
}  // namespace kiln::optest
