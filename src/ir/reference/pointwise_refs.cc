// Reference table entries of pointwise ops: activations, math functions, predicates, Clip, Cast,
// binary arithmetic and comparisons (numpy broadcasting), Where and the variadic Sum/Mean/Min/Max.
#include <algorithm>
#include <cmath>
#include <utility>

#include "op_table.h"

namespace kiln::ir::reference {
namespace {

using Unary = std::function<double(double)>;

double softplus(double x) { return x > 30 ? x : std::log1p(std::exp(x)); }

RefFn unary(Unary f) {
  return [f = std::move(f)](const Call& c) {
    return std::vector<HostTensor>{refUnary(c.x(0), f, c.outType())};
  };
}

// An activation whose function reads the node's attributes.
RefFn unaryWith(std::function<Unary(const Attrs&)> make) {
  return [make = std::move(make)](const Call& c) {
    return std::vector<HostTensor>{refUnary(c.x(0), make(c.attrs()), c.outType())};
  };
}

RefFn binary(std::function<double(double, double)> f) {
  return [f = std::move(f)](const Call& c) {
    return std::vector<HostTensor>{refBinary(c.x(0), c.x(1), f, c.outType())};
  };
}

RefFn variadic(std::function<double(double, double)> f, bool mean = false) {
  return [f = std::move(f), mean](const Call& c) {
    std::vector<const HostTensor*> ins;
    for (size_t i = 0; i < c.in.size(); ++i) ins.push_back(&c.x(i));
    auto fold = [&](const std::vector<double>& v) {
      double acc = v[0];
      for (size_t i = 1; i < v.size(); ++i) acc = f(acc, v[i]);
      return mean ? acc / static_cast<double>(v.size()) : acc;
    };
    return std::vector<HostTensor>{refNary(ins, fold, c.outType())};
  };
}

void addActivations(OpTable& t) {
  t["Relu"] = unary([](double x) { return x < 0 ? 0.0 : x; });
  t["Sigmoid"] = unary([](double x) { return 1 / (1 + std::exp(-x)); });
  t["Tanh"] = unary([](double x) { return std::tanh(x); });
  t["Softplus"] = unary(softplus);
  t["Softsign"] = unary([](double x) { return x / (1 + std::fabs(x)); });
  t["Mish"] = unary([](double x) { return x * std::tanh(softplus(x)); });
  t["HardSwish"] = unary([](double x) { return x * std::clamp(x / 6 + 0.5, 0.0, 1.0); });
  t["Elu"] = unaryWith([](const Attrs& a) {
    double alpha = a.getFloat("alpha", 1.0);
    return [alpha](double x) { return x < 0 ? alpha * (std::exp(x) - 1) : x; };
  });
  t["Celu"] = unaryWith([](const Attrs& a) {
    double alpha = a.getFloat("alpha", 1.0);
    return [alpha](double x) { return x < 0 ? alpha * (std::exp(x / alpha) - 1) : x; };
  });
  t["Selu"] = unaryWith([](const Attrs& a) {
    double alpha = a.getFloat("alpha", 1.67326319217681884765625);
    double gamma = a.getFloat("gamma", 1.05070102214813232421875);
    return [=](double x) { return gamma * (x <= 0 ? alpha * (std::exp(x) - 1) : x); };
  });
  t["HardSigmoid"] = unaryWith([](const Attrs& a) {
    double alpha = a.getFloat("alpha", 0.2), beta = a.getFloat("beta", 0.5);
    return [=](double x) { return std::clamp(alpha * x + beta, 0.0, 1.0); };
  });
  t["ThresholdedRelu"] = unaryWith([](const Attrs& a) {
    double alpha = a.getFloat("alpha", 1.0);
    return [alpha](double x) { return x > alpha ? x : 0.0; };
  });
  t["LeakyRelu"] = unaryWith([](const Attrs& a) {
    double alpha = a.getFloat("alpha", 0.01);
    return [alpha](double x) { return x < 0 ? alpha * x : x; };
  });
  t["Gelu"] = unaryWith([](const Attrs& a) -> Unary {
    if (a.getString("approximate", "none") == "tanh") {
      return [](double x) {
        return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
      };
    }
    return [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); };
  });
  t["PRelu"] = binary([](double x, double slope) { return x < 0 ? slope * x : x; });
}

void addMath(OpTable& t) {
  t["Exp"] = unary([](double x) { return std::exp(x); });
  t["Log"] = unary([](double x) { return std::log(x); });
  t["Sqrt"] = unary([](double x) { return std::sqrt(x); });
  t["Erf"] = unary([](double x) { return std::erf(x); });
  t["Sin"] = unary([](double x) { return std::sin(x); });
  t["Cos"] = unary([](double x) { return std::cos(x); });
  t["Tan"] = unary([](double x) { return std::tan(x); });
  t["Asin"] = unary([](double x) { return std::asin(x); });
  t["Acos"] = unary([](double x) { return std::acos(x); });
  t["Atan"] = unary([](double x) { return std::atan(x); });
  t["Sinh"] = unary([](double x) { return std::sinh(x); });
  t["Cosh"] = unary([](double x) { return std::cosh(x); });
  t["Asinh"] = unary([](double x) { return std::asinh(x); });
  t["Acosh"] = unary([](double x) { return std::acosh(x); });
  t["Atanh"] = unary([](double x) { return std::atanh(x); });
  t["Abs"] = unary([](double x) { return std::fabs(x); });
  t["Neg"] = unary([](double x) { return -x; });
  t["Floor"] = unary([](double x) { return std::floor(x); });
  t["Ceil"] = unary([](double x) { return std::ceil(x); });
  t["Round"] = unary([](double x) { return std::nearbyint(x); });  // ties to even
  t["Sign"] = unary([](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); });
  t["Reciprocal"] = unary([](double x) { return 1 / x; });
  t["Sin"] = unary([](double x) { return std::sin(x); });
  t["Cos"] = unary([](double x) { return std::cos(x); });
  t["Identity"] = unary([](double x) { return x; });
  t["Cast"] = unary([](double x) { return x; });  // toNDArray truncates and saturates
  t["CastLike"] = t["Cast"];
  t["Not"] = unary([](double x) { return x == 0 ? 1.0 : 0.0; });
  t["IsNaN"] = unary([](double x) { return std::isnan(x) ? 1.0 : 0.0; });
  t["IsInf"] = unaryWith([](const Attrs& a) {
    bool pos = a.getInt("detect_positive", 1) != 0, neg = a.getInt("detect_negative", 1) != 0;
    return [=](double x) { return std::isinf(x) && (x > 0 ? pos : neg) ? 1.0 : 0.0; };
  });
  t["Dropout"] = [](const Call& c) {  // inference: the input, and a mask of ones
    std::vector<HostTensor> outs{refUnary(
        c.x(0), [](double x) { return x; }, c.outType())};
    if (c.node.outputs.size() > 1) {
      outs.push_back(refUnary(
          c.x(0), [](double) { return 1.0; }, c.outType(1)));
    }
    return outs;
  };
  t["Clip"] = [](const Call& c) {
    double lo = -INFINITY, hi = INFINITY;
    if (c.attrs().has("min") || c.attrs().has("max")) {
      lo = c.attrs().getFloat("min", lo);
      hi = c.attrs().getFloat("max", hi);
    }
    if (c.has(1)) lo = c.x(1).at(0);
    if (c.has(2)) hi = c.x(2).at(0);
    Unary f = [=](double x) { return x != x ? x : std::min(std::max(x, lo), hi); };
    return std::vector<HostTensor>{refUnary(c.x(0), f, c.outType())};
  };
}

double pythonMod(double a, double b) {
  double r = std::fmod(a, b);
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

void addBinary(OpTable& t) {
  t["Add"] = binary([](double a, double b) { return a + b; });
  t["Sub"] = binary([](double a, double b) { return a - b; });
  t["Mul"] = binary([](double a, double b) { return a * b; });
  t["Div"] = [](const Call& c) {
    bool isFloat = c.outType().isFloat();
    auto div = [isFloat](double a, double b) { return isFloat ? a / b : std::trunc(a / b); };
    return std::vector<HostTensor>{refBinary(c.x(0), c.x(1), div, c.outType())};
  };
  t["Pow"] = binary([](double a, double b) { return std::pow(a, b); });
  t["Mod"] = [](const Call& c) {
    bool fmod = c.attrs().getInt("fmod", 0) != 0;
    auto mod = [fmod](double a, double b) { return fmod ? std::fmod(a, b) : pythonMod(a, b); };
    return std::vector<HostTensor>{refBinary(c.x(0), c.x(1), mod, c.outType())};
  };
  t["BitShift"] = [](const Call& c) {
    bool left = c.attrs().getString("direction", "") == "LEFT";
    int bits = c.outType().bits;
    auto shift = [left, bits](double a, double b) {
      auto x = static_cast<uint64_t>(a), by = static_cast<uint64_t>(b);
      if (by >= static_cast<uint64_t>(bits)) return 0.0;
      uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      return static_cast<double>((left ? x << by : x >> by) & mask);
    };
    return std::vector<HostTensor>{refBinary(c.x(0), c.x(1), shift, c.outType())};
  };
  t["Equal"] = binary([](double a, double b) { return a == b ? 1.0 : 0.0; });
  t["Less"] = binary([](double a, double b) { return a < b ? 1.0 : 0.0; });
  t["Greater"] = binary([](double a, double b) { return a > b ? 1.0 : 0.0; });
  t["LessOrEqual"] = binary([](double a, double b) { return a <= b ? 1.0 : 0.0; });
  t["GreaterOrEqual"] = binary([](double a, double b) { return a >= b ? 1.0 : 0.0; });
  t["And"] = binary([](double a, double b) { return a != 0 && b != 0 ? 1.0 : 0.0; });
  t["Or"] = binary([](double a, double b) { return a != 0 || b != 0 ? 1.0 : 0.0; });
  t["Xor"] = binary([](double a, double b) { return (a != 0) != (b != 0) ? 1.0 : 0.0; });
  t["Where"] = [](const Call& c) {
    auto pick = [](const std::vector<double>& v) { return v[0] != 0 ? v[1] : v[2]; };
    return std::vector<HostTensor>{refNary({&c.x(0), &c.x(1), &c.x(2)}, pick, c.outType())};
  };
  t["Sum"] = variadic([](double a, double b) { return a + b; });
  t["Mean"] = variadic([](double a, double b) { return a + b; }, true);
  t["Min"] = variadic(nanMin);
  t["Max"] = variadic(nanMax);
}

}  // namespace

void addPointwiseRefs(OpTable& table) {
  addActivations(table);
  addMath(table);
  addBinary(table);
}

}  // namespace kiln::ir::reference
