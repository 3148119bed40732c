// One-input pointwise ops end to end: the activations with attributes, rounding, Sign,
// Reciprocal, the predicates (IsNaN, IsInf, Not), CastLike and PRelu, alone and fused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reference.h"

namespace kiln::optest {
namespace {

// A random shape of rank 1..4 with dims 1..6 from RNG.
Shape randomShape(std::mt19937& rng) {
  Shape s(std::uniform_int_distribution<size_t>(1, 4)(rng));
  for (int64_t& d : s) d = std::uniform_int_distribution<int64_t>(1, 6)(rng);
  return s;
}

double softplus(double x) { return std::log1p(std::exp(x)); }

struct Unary {
  const char* op;
  std::function<double(double)> f;
  ir::Attrs attrs;
};

std::vector<Unary> activations() {
  const double kSeluAlpha = 1.67326319217681884765625, kSeluGamma = 1.05070102214813232421875;
  return {
      {"Elu", [](double x) { return x < 0 ? std::exp(x) - 1 : x; }, {}},
      {"Elu", [](double x) { return x < 0 ? 0.3 * (std::exp(x) - 1) : x; },
       attrs({{"alpha", 0.3}})},
      {"Selu",
       [=](double x) { return kSeluGamma * (x <= 0 ? kSeluAlpha * std::exp(x) - kSeluAlpha : x); },
       {}},
      {"Selu", [](double x) { return 3.0 * (x <= 0 ? 2.0 * std::exp(x) - 2.0 : x); },
       attrs({{"alpha", 2.0}, {"gamma", 3.0}})},
      {"Celu",
       [](double x) { return std::max(0.0, x) + std::min(0.0, 0.5 * (std::exp(x / 0.5) - 1)); },
       attrs({{"alpha", 0.5}})},
      {"HardSigmoid", [](double x) { return std::clamp(0.2 * x + 0.5, 0.0, 1.0); }, {}},
      {"HardSigmoid", [](double x) { return std::clamp(0.5 * x + 0.1, 0.0, 1.0); },
       attrs({{"alpha", 0.5}, {"beta", 0.1}})},
      {"HardSwish", [](double x) { return x * std::clamp(x / 6 + 0.5, 0.0, 1.0); }, {}},
      {"ThresholdedRelu", [](double x) { return x > 1.0 ? x : 0.0; }, {}},
      {"ThresholdedRelu", [](double x) { return x > -0.5 ? x : 0.0; }, attrs({{"alpha", -0.5}})},
      {"Softplus", softplus, {}},
      {"Softsign", [](double x) { return x / (1 + std::fabs(x)); }, {}},
      {"Mish", [](double x) { return x * std::tanh(softplus(x)); }, {}},
      {"Gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, {}},
      {"Gelu",
       [](double x) {
         return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
       },
       attrs({{"approximate", std::string("tanh")}})},
      {"Floor", [](double x) { return std::floor(x); }, {}},
      {"Ceil", [](double x) { return std::ceil(x); }, {}},
      {"Round", [](double x) { return std::nearbyint(x); }, {}},  // ties to even
      {"Reciprocal", [](double x) { return 1 / x; }, {}},
      {"Sign", [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }, {}},
  };
}

TEST(Activation, EveryOpOnRandomShapes) {
  checkAtAllLevels([](OpGraph& g) {
    std::mt19937 rng(42);
    uint32_t seed = 1;
    for (const Unary& u : activations()) {
      Shape s = randomShape(rng);
      bool reciprocal = std::string(u.op) == "Reciprocal";
      HostTensor x = randomTensor(s, seed++, reciprocal ? 0.5 : -4.0, 4.0);
      g.expect(g.node(u.op, {g.input(x)}, u.attrs), rounded(refUnary(x, u.f)),
               strCat(u.op, " ", runtime::shapeStr(s)));
    }
  });
}

TEST(Activation, RoundTiesToEvenAndSignOfIntegers) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x =
        ints({9}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4999, 3.7, -0.0}, DataType::float32());
    g.expect(g.node("Round", {g.input(x)}),
             ints({9}, {-2, -2, 0, 0, 2, 2, 0, 4, 0}, DataType::float32()), "Round halves");
    HostTensor i = randomTensor({4, 7}, 3, -5, 5, DataType::int64());
    g.expect(g.node("Sign", {g.input(i)}),
             refUnary(
                 i, [](double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }, DataType::int64()),
             "Sign int64");
  });
}

TEST(Activation, PredicatesAndNot) {
  checkAtAllLevels([](OpGraph& g) {
    double inf = INFINITY;
    HostTensor x = ints({2, 4}, {1.0, NAN, inf, -inf, -2.0, 0.0, NAN, -inf}, DataType::float32());
    auto pred = [&](const std::function<bool(double)>& f) {
      return refUnary(
          x, [f](double v) { return f(v) ? 1.0 : 0.0; }, DataType::boolean());
    };
    g.expect(g.node("IsNaN", {g.input(x)}), pred([](double v) { return std::isnan(v); }), "IsNaN");
    g.expect(g.node("IsInf", {g.input(x)}), pred([](double v) { return std::isinf(v); }), "IsInf");
    g.expect(g.node("IsInf", {g.input(x)}, attrs({{"detect_negative", int64_t{0}}})),
             pred([](double v) { return v == INFINITY; }), "IsInf positive only");
    g.expect(g.node("IsInf", {g.input(x)}, attrs({{"detect_positive", int64_t{0}}})),
             pred([](double v) { return v == -INFINITY; }), "IsInf negative only");
    HostTensor b = randomTensor({3, 5, 2}, 4, 0, 2, DataType::boolean());
    g.expect(g.node("Not", {g.input(b)}),
             refUnary(
                 b, [](double v) { return v != 0 ? 0.0 : 1.0; }, DataType::boolean()),
             "Not");
  });
}

TEST(Activation, CastLikeIgnoresTheShapeOfItsTarget) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({3, 4}, 5, -20, 20);
    HostTensor like = randomTensor({7}, 6, 0, 5, DataType::int64());  // shape unrelated to x's
    g.expect(g.node("CastLike", {g.input(x), g.input(like)}),
             refUnary(
                 x, [](double v) { return std::trunc(v); }, DataType::int64()),
             "CastLike float->int64");
    HostTensor i = randomTensor({2, 3}, 7, -9, 9, DataType::int32());
    HostTensor f = randomTensor({}, 8);
    g.expect(g.node("CastLike", {g.input(i), g.constant(f)}),
             refUnary(
                 i, [](double v) { return v; }, DataType::float32()),
             "CastLike int32->float");
  });
}

TEST(Activation, PReluBroadcastsItsSlope) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor({2, 3, 4, 5}, 9, -3, 3);
    uint32_t seed = 10;
    for (const Shape& s : {Shape{3, 1, 1}, Shape{5}, Shape{1}, Shape{2, 3, 4, 5}}) {
      HostTensor slope = randomTensor(s, seed++, -1, 1);
      g.expect(g.node("PRelu", {g.input(x), g.constant(slope)}),
               refBinary(x, slope, [](double v, double a) { return v < 0 ? a * v : v; }),
               strCat("PRelu slope ", runtime::shapeStr(s)));
    }
  });
}

// At -O3 these run as epilogues (MatMul -> PRelu, ReduceMean -> Elu) and as one elementwise
// loop (HardSwish -> Softsign -> Less -> Where).
TEST(Activation, FusedChains) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor a = randomTensor({6, 9}, 20), b = randomTensor({9, 4}, 21);
    HostTensor slope = randomTensor({4}, 22, 0.05, 0.5);
    g.expect(
        g.node("PRelu", {g.node("MatMul", {g.input(a), g.constant(b)}), g.constant(slope)}),
        refBinary(refMatMul(a, b), slope, [](double v, double s) { return v < 0 ? s * v : v; }),
        "MatMul+PRelu");
    HostTensor r = randomTensor({3, 5, 8}, 23, -3, 3);
    g.expect(g.node("Elu", {g.node("ReduceMean", {g.input(r)}, attrs({{"axes", Dims{2}}}))}),
             refUnary(refReduce(r, {2}, true, ReduceKind::kMean),
                      [](double v) { return v < 0 ? std::exp(v) - 1 : v; }),
             "ReduceMean+Elu");
    HostTensor x = randomTensor({4, 33}, 24, -5, 5);
    HostTensor t = ints({}, {0.1}, DataType::float32()),
               zero = ints({}, {0.0}, DataType::float32());
    ir::Value* h = g.node("Softsign", {g.node("HardSwish", {g.input(x)})});
    ir::Value* y = g.node("Where", {g.node("Less", {h, g.constant(t)}), g.constant(zero), h});
    auto f = [](double v) {
      double s = v * std::clamp(v / 6 + 0.5, 0.0, 1.0);
      s = s / (1 + std::fabs(s));
      return static_cast<float>(s) < 0.1f ? 0.0 : s;
    };
    g.expect(y, rounded(refUnary(x, f)), "HardSwish+Softsign+Less+Where");
  });
}

}  // namespace
}  // namespace kiln::optest
