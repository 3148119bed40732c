// Elementwise and broadcast ops end to end: activations, math functions (trigonometric too), Clip,
// Cast, binary arithmetic and comparisons with numpy broadcasting, Where.
#include <gtest/gtest.h>

#include <cmath>

#include "reference.h"

namespace kiln::optest {
namespace {

const Shape kShape{2, 3, 17};

void addUnary(OpGraph& g, const std::string& op, const std::function<double(double)>& f,
              ir::Attrs a = {}, double lo = -3.0, double hi = 3.0) {
  HostTensor x = randomTensor(kShape, static_cast<uint32_t>(op.size() * 31), lo, hi);
  g.expect(g.node(op, {g.input(x)}, std::move(a)), refUnary(x, f), op);
}

TEST(Elementwise, UnaryFloatOps) {
  checkAtAllLevels([](OpGraph& g) {
    addUnary(g, "Relu", [](double x) { return std::max(x, 0.0); });
    addUnary(g, "Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); });
    addUnary(g, "Tanh", [](double x) { return std::tanh(x); });
    addUnary(g, "Exp", [](double x) { return std::exp(x); });
    addUnary(
        g, "Log", [](double x) { return std::log(x); }, {}, 0.01, 5.0);
    addUnary(
        g, "Sqrt", [](double x) { return std::sqrt(x); }, {}, 0.0, 5.0);
    addUnary(g, "Erf", [](double x) { return std::erf(x); });
    addUnary(g, "Neg", [](double x) { return -x; });
    addUnary(g, "Abs", [](double x) { return std::fabs(x); });
    addUnary(g, "Identity", [](double x) { return x; });
    addUnary(
        g, "LeakyRelu", [](double x) { return x < 0 ? 0.2 * x : x; }, attrs({{"alpha", 0.2}}));
    addUnary(g, "LeakyRelu", [](double x) { return x < 0 ? 0.01 * x : x; });
  });
}

// Each on a domain where it is defined and finite.
TEST(Elementwise, TrigonometricAndHyperbolicOps) {
  checkAtAllLevels([](OpGraph& g) {
    addUnary(g, "Sin", [](double x) { return std::sin(x); });
    addUnary(g, "Cos", [](double x) { return std::cos(x); });
    addUnary(
        g, "Tan", [](double x) { return std::tan(x); }, {}, -1.4, 1.4);
    addUnary(
        g, "Asin", [](double x) { return std::asin(x); }, {}, -1.0, 1.0);
    addUnary(
        g, "Acos", [](double x) { return std::acos(x); }, {}, -1.0, 1.0);
    addUnary(g, "Atan", [](double x) { return std::atan(x); });
    addUnary(g, "Sinh", [](double x) { return std::sinh(x); });
    addUnary(g, "Cosh", [](double x) { return std::cosh(x); });
    addUnary(g, "Asinh", [](double x) { return std::asinh(x); });
    addUnary(
        g, "Acosh", [](double x) { return std::acosh(x); }, {}, 1.0, 6.0);
    addUnary(
        g, "Atanh", [](double x) { return std::atanh(x); }, {}, -0.95, 0.95);
  });
}

TEST(Elementwise, DropoutIsIdentityInInference) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor(kShape, 3);
    g.expect(g.node("Dropout", {g.input(x)}), x, "Dropout");
  });
}

TEST(Elementwise, ClipWithConstantBounds) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor(kShape, 4, -8, 8);
    HostTensor lo = ints({}, {-1.5}, DataType::float32()),
               hi = ints({}, {6.0}, DataType::float32());
    g.expect(g.node("Clip", {g.input(x), g.constant(lo), g.constant(hi)}),
             refUnary(x, [](double v) { return std::clamp(v, -1.5, 6.0); }), "Clip min max");
    g.expect(g.node("Clip", {g.input(x), g.constant(lo)}),
             refUnary(x, [](double v) { return std::max(v, -1.5); }), "Clip min only");
    g.expect(g.node("Clip", {g.input(x), nullptr, g.constant(hi)}),
             refUnary(x, [](double v) { return std::min(v, 6.0); }), "Clip max only");
  });
}

TEST(Elementwise, CastBetweenTypes) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor f = randomTensor(kShape, 5, -50, 50);
    g.expect(g.node("Cast", {g.input(f)}, attrs({{"to", int64_t{7}}})),
             refUnary(
                 f, [](double v) { return std::trunc(v); }, DataType::int64()),
             "float->int64");
    g.expect(g.node("Cast", {g.input(f)}, attrs({{"to", int64_t{6}}})),
             refUnary(
                 f, [](double v) { return std::trunc(v); }, DataType::int32()),
             "float->int32");
    HostTensor i = randomTensor(kShape, 6, -100, 100, DataType::int64());
    g.expect(g.node("Cast", {g.input(i)}, attrs({{"to", int64_t{1}}})),
             refUnary(
                 i, [](double v) { return v; }, DataType::float32()),
             "int64->float");
    g.expect(g.node("Cast", {g.input(i)}, attrs({{"to", int64_t{11}}})),
             refUnary(
                 i, [](double v) { return v; }, DataType::float64()),
             "int64->double");
    g.expect(g.node("Cast", {g.input(i)}, attrs({{"to", int64_t{9}}})),
             refUnary(
                 i, [](double v) { return v != 0 ? 1.0 : 0.0; }, DataType::boolean()),
             "int64->bool");
  });
}

TEST(Elementwise, BinaryOpsBroadcast) {
  struct Op {
    const char* name;
    std::function<double(double, double)> f;
    DataType out;
  };
  std::vector<Op> ops{
      {"Add", std::plus<double>(), DataType::float32()},
      {"Sub", std::minus<double>(), DataType::float32()},
      {"Mul", std::multiplies<double>(), DataType::float32()},
      {"Div", std::divides<double>(), DataType::float32()},
      {"Pow", [](double a, double b) { return std::pow(a, b); }, DataType::float32()},
      {"Equal", [](double a, double b) { return a == b ? 1.0 : 0.0; }, DataType::boolean()}};
  checkAtAllLevels([&](OpGraph& g) {
    uint32_t seed = 1;
    for (const Op& op : ops) {
      for (auto [as, bs] : std::vector<std::pair<Shape, Shape>>{{{2, 3, 4}, {2, 3, 4}},
                                                                {{2, 3, 4}, {4}},
                                                                {{2, 1, 4}, {3, 1}},
                                                                {{1}, {2, 5}},
                                                                {{3, 1, 5}, {1, 4, 1}},
                                                                {{2, 3, 4}, {}}}) {
        bool pow = std::string(op.name) == "Pow";
        bool eq = std::string(op.name) == "Equal";
        HostTensor a = randomTensor(as, seed++, pow ? 0.1 : -2.0, 2.0);
        HostTensor b = randomTensor(bs, seed++, pow ? -2.0 : 0.5, 2.0);
        if (eq)
          a = randomTensor(as, seed++, 0, 3, DataType::int64()),
          b = randomTensor(bs, seed++, 0, 3, DataType::int64());
        g.expect(g.node(op.name, {g.input(a), g.input(b)}), refBinary(a, b, op.f, op.out),
                 strCat(op.name, " ", runtime::shapeStr(as), " ", runtime::shapeStr(bs)));
      }
    }
  });
}

TEST(Elementwise, IntegerArithmetic) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor a = randomTensor({4, 5}, 1, -20, 20, DataType::int64());
    HostTensor b = randomTensor({5}, 2, 1, 6, DataType::int64());
    g.expect(g.node("Add", {g.input(a), g.input(b)}),
             refBinary(a, b, std::plus<double>(), DataType::int64()), "int Add");
    g.expect(g.node("Mul", {g.input(a), g.input(b)}),
             refBinary(a, b, std::multiplies<double>(), DataType::int64()), "int Mul");
    g.expect(g.node("Div", {g.input(a), g.input(b)}),
             refBinary(
                 a, b, [](double x, double y) { return std::trunc(x / y); }, DataType::int64()),
             "int Div truncates");
  });
}

TEST(Elementwise, PowWithConstantExponents) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor x = randomTensor(kShape, 9, 0.1, 3.0);
    for (double e : {2.0, 0.5, 3.0, -1.0, 1.7}) {
      HostTensor ex = ints({}, {e}, DataType::float32());
      g.expect(g.node("Pow", {g.input(x), g.constant(ex)}),
               refUnary(x, [e](double v) { return std::pow(v, e); }), strCat("Pow ^", e));
    }
  });
}

TEST(Elementwise, WhereBroadcasts) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor c = randomTensor({3, 1}, 1, 0, 2, DataType::boolean());
    HostTensor x = randomTensor({2, 3, 4}, 2), y = randomTensor({4}, 3);
    g.expect(g.node("Where", {g.input(c), g.input(x), g.input(y)}),
             refNary(
                 {&c, &x, &y}, [](const std::vector<double>& v) { return v[0] != 0 ? v[1] : v[2]; },
                 DataType::float32()),
             "Where");
  });
}

TEST(Elementwise, LargeTensorsTakeTheParallelPaths) {
  checkAtAllLevels([](OpGraph& g) {
    // Flat chunks with a ragged last chunk, and broadcast rows split across tasks.
    HostTensor a = randomTensor({7, 33, 1001}, 1), b = randomTensor({7, 33, 1001}, 2);
    g.expect(g.node("Sigmoid", {g.node("Add", {g.input(a), g.input(b)})}),
             refUnary(refBinary(a, b, std::plus<double>()),
                      [](double v) { return 1 / (1 + std::exp(-v)); }),
             "large Add+Sigmoid");
    HostTensor c = randomTensor({64, 3001}, 3), d = randomTensor({3001}, 4);
    g.expect(g.node("Mul", {g.input(c), g.input(d)}), refBinary(c, d, std::multiplies<double>()),
             "large broadcast Mul");
  });
}

}  // namespace
}  // namespace kiln::optest
