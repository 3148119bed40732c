// Elementwise and broadcast ops as expressions of their inputs' elements (ONNX semantics), so
// that chains of them inline into one loop or into an anchor's epilogue.
#include <cmath>

#include "../index_math.h"
#include "../loop_builder.h"
#include "compute_table.h"
#include "kiln/support/error.h"

namespace kiln::kernel {
namespace {

using Ins = std::vector<Expr>;

Expr c(double v, const Expr& like) { return constant(v, like->dtype); }
Expr lt(const Expr& a, const Expr& b) { return compare(CompareOp::kLT, a, b); }
Expr fcall(Intrinsic f, const Expr& x) { return call(f, {x}); }
double attrF(const ir::Node& n, const char* name, double dflt) {
  return n.attrs.getFloat(name, dflt);
}

void unary(LoweringMap& t, const std::string& name,
           const std::function<Expr(const ir::Node&, const Expr&)>& f) {
  t[name] = pointwiseOp([f](const ir::Node& n, const Ins& in) { return f(n, in[0]); });
}

void binaryOp(LoweringMap& t, const std::string& name,
              const std::function<Expr(const Expr&, const Expr&)>& f) {
  t[name] = pointwiseOp([f](const ir::Node&, const Ins& in) { return f(in[0], in[1]); });
}

// Float-only ops reject integer inputs with a clear error instead of an internal check.
Expr requireFloat(const ir::Node& n, const Expr& x) {
  if (!x->dtype.isFloat())
    unsupported(n, strCat("input dtype ", x->dtype.str(), "; expected a float type"));
  return x;
}

void floatUnary(LoweringMap& t, const std::string& name,
                const std::function<Expr(const ir::Node&, const Expr&)>& f) {
  unary(t, name, [f](const ir::Node& n, const Expr& x) { return f(n, requireFloat(n, x)); });
}

Expr softplus(const Expr& x) {
  // max(x, 0) + log(1 + exp(-|x|)) never overflows.
  Expr e = fcall(Intrinsic::kExp, c(0, x) - fcall(Intrinsic::kAbs, x));
  return max(x, c(0, x)) + fcall(Intrinsic::kLog, c(1, x) + e);
}

// Round half to even, as ONNX Round (and numpy) define it.
Expr roundHalfEven(const Expr& x) {
  Expr fl = fcall(Intrinsic::kFloor, x);
  Expr diff = x - fl;
  Expr half = fl - c(2, x) * fcall(Intrinsic::kFloor, fl * c(0.5, x));  // 0 when fl is even
  Expr up = fl + c(1, x);
  Expr tie = select(compare(CompareOp::kEQ, half, c(0, x)), fl, up);
  return select(lt(diff, c(0.5, x)), fl, select(compare(CompareOp::kGT, diff, c(0.5, x)), up, tie));
}

Expr trunc(const Expr& x) {
  return select(lt(x, c(0, x)), fcall(Intrinsic::kCeil, x), fcall(Intrinsic::kFloor, x));
}

Expr castTo(DataType to, const Expr& x) {
  if (x->dtype == to) return x;
  if (to.isBool()) return compare(CompareOp::kNE, x, c(0, x));
  if (x->dtype.isBool()) return select(x, constant(1, to), constant(0, to));
  return cast(to, x);
}

Expr power(const Expr& base, const Expr& expo) {
  Expr e = castTo(base->dtype, expo);
  if (e->kind == ExprKind::kFloatImm || e->kind == ExprKind::kIntImm) {
    double v = e->kind == ExprKind::kFloatImm ? e->floatValue : static_cast<double>(e->intValue);
    if (v == 1) return base;
    if (v == 2) return base * base;
    if (v == 3) return base * base * base;
    if (v == 0.5 && base->dtype.isFloat()) return fcall(Intrinsic::kSqrt, base);
    if (v == -1 && base->dtype.isFloat()) return c(1, base) / base;
  }
  if (!base->dtype.isFloat()) {
    // An integer base: the power in double (exact up to 2^53), truncated to the base's type, as
    // ONNX Runtime computes it; the exponent keeps its own type's value (2.5 stays 2.5).
    DataType f64 = DataType::float64();
    return cast(base->dtype, call(Intrinsic::kPow, {cast(f64, base), castTo(f64, expo)}));
  }
  return call(Intrinsic::kPow, {base, e});
}

// Integer division traps on a zero divisor and on INT_MIN / -1; a model's run must never kill the
// process, so such elements get NumPy's answers instead (0 for x/0 and x%0, -x for x/-1).
Expr guardedIntegerDivision(BinaryOp op, const Expr& a, const Expr& b) {
  Expr zero = intImm(0, b->dtype), one = intImm(1, b->dtype);
  Expr isZero = compare(CompareOp::kEQ, b, zero);
  if (!b->dtype.isInt()) return select(isZero, zero, binary(op, a, select(isZero, one, b)));
  Expr isMinusOne = compare(CompareOp::kEQ, b, intImm(-1, b->dtype));
  Expr divisor = select(isZero || isMinusOne, one, b);
  bool isDiv = op == BinaryOp::kDiv || op == BinaryOp::kFloorDiv;
  Expr byMinusOne = isDiv ? zero - a : zero;
  return select(isZero, zero, select(isMinusOne, byMinusOne, binary(op, a, divisor)));
}

Expr divide(const Expr& a, const Expr& b) {
  if (a->dtype.isFloat()) return a / b;
  return guardedIntegerDivision(BinaryOp::kDiv, a, b);
}

Expr mod(const ir::Node& n, const Expr& a, const Expr& b) {
  bool fmod = n.attrs.getInt("fmod", 0) != 0;
  if (a->dtype.isFloat()) {
    if (!fmod) unsupported(n, "Mod of floats requires fmod=1");
    return a - trunc(a / b) * b;
  }
  return guardedIntegerDivision(fmod ? BinaryOp::kMod : BinaryOp::kFloorMod, a, b);
}

Expr variadic(const Ins& in, const std::function<Expr(const Expr&, const Expr&)>& f) {
  Expr acc;
  for (const Expr& x : in) acc = acc == nullptr ? x : f(acc, x);
  return acc;
}

Expr clipBound(const ir::Node& n, const Ins& in, size_t i, const char* attr, const Expr& x) {
  if (i < in.size() && in[i] != nullptr) return castTo(x->dtype, in[i]);
  if (n.attrs.has(attr)) return constant(n.attrs.getFloat(attr, 0), x->dtype);
  return nullptr;
}

void addActivations(LoweringMap& t) {
  unary(t, "Relu", [](const ir::Node&, const Expr& x) { return max(x, c(0, x)); });
  floatUnary(t, "LeakyRelu", [](const ir::Node& n, const Expr& x) {
    return select(lt(x, c(0, x)), x * c(attrF(n, "alpha", 0.01), x), x);
  });
  floatUnary(t, "Sigmoid",
             [](const ir::Node&, const Expr& x) { return fcall(Intrinsic::kSigmoid, x); });
  floatUnary(t, "Tanh", [](const ir::Node&, const Expr& x) { return fcall(Intrinsic::kTanh, x); });
  floatUnary(t, "Elu", [](const ir::Node& n, const Expr& x) {
    Expr neg = c(attrF(n, "alpha", 1.0), x) * (fcall(Intrinsic::kExp, x) - c(1, x));
    return select(lt(x, c(0, x)), neg, x);
  });
  floatUnary(t, "Selu", [](const ir::Node& n, const Expr& x) {
    double alpha = attrF(n, "alpha", 1.67326319217681884765625);
    double gamma = attrF(n, "gamma", 1.05070102214813232421875);
    Expr neg = c(alpha, x) * fcall(Intrinsic::kExp, x) - c(alpha, x);
    return c(gamma, x) * select(compare(CompareOp::kLE, x, c(0, x)), neg, x);
  });
  floatUnary(t, "Celu", [](const ir::Node& n, const Expr& x) {
    double alpha = attrF(n, "alpha", 1.0);
    Expr e = c(alpha, x) * (fcall(Intrinsic::kExp, x / c(alpha, x)) - c(1, x));
    return max(x, c(0, x)) + min(c(0, x), e);
  });
  floatUnary(t, "HardSigmoid", [](const ir::Node& n, const Expr& x) {
    Expr y = c(attrF(n, "alpha", 0.2), x) * x + c(attrF(n, "beta", 0.5), x);
    return max(c(0, x), min(c(1, x), y));
  });
  floatUnary(t, "HardSwish", [](const ir::Node&, const Expr& x) {
    return x * max(c(0, x), min(c(1, x), x * c(1.0 / 6.0, x) + c(0.5, x)));
  });
  floatUnary(t, "ThresholdedRelu", [](const ir::Node& n, const Expr& x) {
    return select(compare(CompareOp::kGT, x, c(attrF(n, "alpha", 1.0), x)), x, c(0, x));
  });
  floatUnary(t, "Softplus", [](const ir::Node&, const Expr& x) { return softplus(x); });
  floatUnary(t, "Softsign", [](const ir::Node&, const Expr& x) {
    return x / (c(1, x) + fcall(Intrinsic::kAbs, x));
  });
  floatUnary(t, "Mish", [](const ir::Node&, const Expr& x) {
    return x * fcall(Intrinsic::kTanh, softplus(x));
  });
  floatUnary(t, "Gelu", [](const ir::Node& n, const Expr& x) {
    std::string approx = n.attrs.getString("approximate", "none");
    if (approx == "tanh") {
      Expr inner = c(std::sqrt(2.0 / M_PI), x) * (x + c(0.044715, x) * x * x * x);
      return c(0.5, x) * x * (c(1, x) + fcall(Intrinsic::kTanh, inner));
    }
    if (approx != "none")
      unsupported(n, strCat("approximate='", approx, "'; expected none or tanh"));
    return c(0.5, x) * x * (c(1, x) + fcall(Intrinsic::kErf, x * c(M_SQRT1_2, x)));
  });
  t["PRelu"] = pointwiseOp([](const ir::Node& n, const Ins& in) {
    requireFloat(n, in[0]);
    return select(lt(in[0], c(0, in[0])), in[0] * in[1], in[0]);
  });
  t["Clip"] = pointwiseOp([](const ir::Node& n, const Ins& in) {
    Expr x = in[0];
    if (Expr lo = clipBound(n, in, 1, "min", x)) x = max(x, lo);
    if (Expr hi = clipBound(n, in, 2, "max", x)) x = min(x, hi);
    return x;
  });
}

void addMath(LoweringMap& t) {
  floatUnary(t, "Exp", [](const ir::Node&, const Expr& x) { return fcall(Intrinsic::kExp, x); });
  floatUnary(t, "Log", [](const ir::Node&, const Expr& x) { return fcall(Intrinsic::kLog, x); });
  floatUnary(t, "Sqrt", [](const ir::Node&, const Expr& x) { return fcall(Intrinsic::kSqrt, x); });
  floatUnary(t, "Erf", [](const ir::Node&, const Expr& x) { return fcall(Intrinsic::kErf, x); });
  const std::pair<const char*, Intrinsic> kTrig[] = {
      {"Sin", Intrinsic::kSin},     {"Cos", Intrinsic::kCos},     {"Tan", Intrinsic::kTan},
      {"Asin", Intrinsic::kAsin},   {"Acos", Intrinsic::kAcos},   {"Atan", Intrinsic::kAtan},
      {"Sinh", Intrinsic::kSinh},   {"Cosh", Intrinsic::kCosh},   {"Asinh", Intrinsic::kAsinh},
      {"Acosh", Intrinsic::kAcosh}, {"Atanh", Intrinsic::kAtanh},
  };
  for (const auto& [op, f] : kTrig) {
    floatUnary(t, op, [f = f](const ir::Node&, const Expr& x) { return fcall(f, x); });
  }
  floatUnary(t, "Floor",
             [](const ir::Node&, const Expr& x) { return fcall(Intrinsic::kFloor, x); });
  floatUnary(t, "Ceil", [](const ir::Node&, const Expr& x) { return fcall(Intrinsic::kCeil, x); });
  floatUnary(t, "Round", [](const ir::Node&, const Expr& x) { return roundHalfEven(x); });
  floatUnary(t, "Reciprocal", [](const ir::Node&, const Expr& x) { return c(1, x) / x; });
  unary(t, "Abs", [](const ir::Node&, const Expr& x) {
    return x->dtype.isUInt() ? x : fcall(Intrinsic::kAbs, x);
  });
  unary(t, "Neg", [](const ir::Node&, const Expr& x) {
    return x->dtype.isFloat() ? x * c(-1, x) : c(0, x) - x;
  });
  unary(t, "Sign", [](const ir::Node&, const Expr& x) {
    return select(compare(CompareOp::kGT, x, c(0, x)), c(1, x),
                  select(lt(x, c(0, x)), c(-1, x), c(0, x)));
  });
  unary(t, "Not", [](const ir::Node&, const Expr& x) {
    return compare(CompareOp::kEQ, x, intImm(0, x->dtype));
  });
  floatUnary(t, "IsNaN",
             [](const ir::Node&, const Expr& x) { return compare(CompareOp::kNE, x, x); });
  floatUnary(t, "IsInf", [](const ir::Node& n, const Expr& x) {
    Expr inf = c(INFINITY, x);
    Expr pos = compare(CompareOp::kEQ, x, inf);
    Expr neg = compare(CompareOp::kEQ, x, c(-INFINITY, x));
    bool detectPos = n.attrs.getInt("detect_positive", 1) != 0;
    bool detectNeg = n.attrs.getInt("detect_negative", 1) != 0;
    if (detectPos && detectNeg) return pos || neg;
    if (detectPos) return pos;
    if (detectNeg) return neg;
    return intImm(0, DataType::boolean());
  });
  for (const char* name : {"Identity", "Dropout"}) {
    OpLowering l = pointwiseOp([](const ir::Node&, const Ins& in) { return in[0]; });
    l.flatCopy = true;
    auto compute = l.compute;
    l.compute = [compute](LowerContext& ctx, const ir::Node& n) {
      std::vector<Accessor> outs = compute(ctx, n);
      // Dropout's mask in inference is all true.
      for (size_t i = 1; i < n.outputs.size(); ++i) {
        DataType maskType = n.outputs[i]->type.dtype;
        outs.push_back([maskType](const Index&) { return constant(1, maskType); });
      }
      return outs;
    };
    t[name] = l;
  }
  t["Cast"] = pointwiseOp(
      [](const ir::Node& n, const Ins& in) { return castTo(n.outputs[0]->type.dtype, in[0]); });
  // CastLike's input 1 only names the target type; its shape need not broadcast to the output's.
  OpLowering castLike;
  castLike.pointwise = true;
  castLike.compute = [](LowerContext& ctx, const ir::Node& n) {
    Accessor a = [&ctx, &n](const Index& idx) {
      return castTo(n.outputs[0]->type.dtype, inputAt(ctx, n, 0, idx));
    };
    return std::vector<Accessor>{a};
  };
  t["CastLike"] = castLike;
}

void addBinary(LoweringMap& t) {
  binaryOp(t, "Add", [](const Expr& a, const Expr& b) { return a + b; });
  binaryOp(t, "Sub", [](const Expr& a, const Expr& b) { return a - b; });
  binaryOp(t, "Mul", [](const Expr& a, const Expr& b) { return a * b; });
  binaryOp(t, "Div", divide);
  binaryOp(t, "Equal", [](const Expr& a, const Expr& b) { return compare(CompareOp::kEQ, a, b); });
  binaryOp(t, "Less", [](const Expr& a, const Expr& b) { return compare(CompareOp::kLT, a, b); });
  binaryOp(t, "LessOrEqual",
           [](const Expr& a, const Expr& b) { return compare(CompareOp::kLE, a, b); });
  binaryOp(t, "Greater",
           [](const Expr& a, const Expr& b) { return compare(CompareOp::kGT, a, b); });
  binaryOp(t, "GreaterOrEqual",
           [](const Expr& a, const Expr& b) { return compare(CompareOp::kGE, a, b); });
  binaryOp(t, "And", [](const Expr& a, const Expr& b) { return a && b; });
  binaryOp(t, "Or", [](const Expr& a, const Expr& b) { return a || b; });
  binaryOp(t, "Xor", [](const Expr& a, const Expr& b) { return compare(CompareOp::kNE, a, b); });
  t["Pow"] = pointwiseOp([](const ir::Node&, const Ins& in) { return power(in[0], in[1]); });
  t["Mod"] = pointwiseOp([](const ir::Node& n, const Ins& in) { return mod(n, in[0], in[1]); });
  t["BitShift"] = pointwiseOp([](const ir::Node& n, const Ins& in) {
    bool left = n.attrs.getString("direction", "") == "LEFT";
    return binary(left ? BinaryOp::kShl : BinaryOp::kShr, in[0], in[1]);
  });
  t["Where"] =
      pointwiseOp([](const ir::Node&, const Ins& in) { return select(in[0], in[1], in[2]); });
  t["Min"] = pointwiseOp([](const ir::Node&, const Ins& in) {
    return variadic(in, [](const Expr& a, const Expr& b) { return min(a, b); });
  });
  t["Max"] = pointwiseOp([](const ir::Node&, const Ins& in) {
    return variadic(in, [](const Expr& a, const Expr& b) { return max(a, b); });
  });
  t["Sum"] = pointwiseOp([](const ir::Node&, const Ins& in) { return variadic(in, add); });
  t["Mean"] = pointwiseOp([](const ir::Node& n, const Ins& in) {
    Expr s = variadic(in, add);
    requireFloat(n, s);
    return s / c(static_cast<double>(in.size()), s);
  });
}

}  // namespace

void addElementwiseLowerings(LoweringMap& table) {
  addActivations(table);
  addMath(table);
  addBinary(table);
}

}  // namespace kiln::kernel
