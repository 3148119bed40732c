// Checks elementwise kernels (arithmetic, select, compare, cast, math intrinsics, let) against
// plain C++ over random data.
#include <gtest/gtest.h>

#include <cmath>

#include "compiled_library.h"

namespace kiln::codegen {
namespace {

using namespace tir;
using testing::CompiledLibrary;
using testing::randomFloats;

constexpr int64_t kN = 1003;  // not a multiple of any vector width

PrimFunc vectorAdd() {
  Buffer a = makeBuffer("a", DataType::float32(), {kN});
  Buffer b = makeBuffer("b", DataType::float32(), {kN});
  Buffer c = makeBuffer("c", DataType::float32(), {kN});
  Expr i = var("i");
  Stmt body =
      forLoop(i, intImm(0), intImm(kN), ForKind::kVectorized, store(c, i, load(a, i) + load(b, i)));
  return {"vadd", {a, b, c}, body};
}

TEST(Elementwise, VectorAdd) {
  CompiledLibrary lib({vectorAdd()});
  auto a = randomFloats(kN, -10, 10, 1), b = randomFloats(kN, -10, 10, 2);
  std::vector<float> c(kN, 0);
  ASSERT_EQ(lib.call("vadd", {a.data(), b.data(), c.data()}), 0);
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

// One unary function of x per output buffer.
struct UnaryCase {
  const char* name;
  std::function<Expr(Expr)> build;
  std::function<float(float)> reference;
  float tolerance;
};

Expr f32(double v) { return floatImm(v); }

std::vector<UnaryCase> unaryCases() {
  return {
      {"leaky_relu",
       [](const Expr& x) { return select(compare(CompareOp::kGT, x, f32(0)), x, x * f32(0.1)); },
       [](float x) { return x > 0 ? x : x * 0.1f; }, 0},
      {"exp", [](const Expr& x) { return call(Intrinsic::kExp, {x}); },
       [](float x) { return std::exp(x); }, 1e-5f},
      {"log",
       [](const Expr& x) { return call(Intrinsic::kLog, {call(Intrinsic::kAbs, {x}) + f32(1)}); },
       [](float x) { return std::log(std::fabs(x) + 1); }, 1e-5f},
      {"sqrt", [](const Expr& x) { return call(Intrinsic::kSqrt, {call(Intrinsic::kAbs, {x})}); },
       [](float x) { return std::sqrt(std::fabs(x)); }, 1e-6f},
      {"tanh", [](const Expr& x) { return call(Intrinsic::kTanh, {x}); },
       [](float x) { return std::tanh(x); }, 1e-6f},
      {"erf", [](const Expr& x) { return call(Intrinsic::kErf, {x}); },
       [](float x) { return std::erf(x); }, 1e-6f},
      {"sigmoid", [](const Expr& x) { return call(Intrinsic::kSigmoid, {x}); },
       [](float x) { return 1 / (1 + std::exp(-x)); }, 1e-6f},
      {"floor", [](const Expr& x) { return call(Intrinsic::kFloor, {x}); },
       [](float x) { return std::floor(x); }, 0},
      {"ceil", [](const Expr& x) { return call(Intrinsic::kCeil, {x}); },
       [](float x) { return std::ceil(x); }, 0},
      {"round", [](const Expr& x) { return call(Intrinsic::kRound, {x}); },
       [](float x) { return std::nearbyint(x); }, 0},
      {"pow",
       [](const Expr& x) {
         return call(Intrinsic::kPow, {call(Intrinsic::kAbs, {x}), f32(1.5)});
       },
       [](float x) { return std::pow(std::fabs(x), 1.5f); }, 1e-5f},
      {"min_max", [](const Expr& x) { return max(min(x, f32(1)), f32(-1)); },
       [](float x) { return std::max(std::min(x, 1.0f), -1.0f); }, 0},
      {"fma_like", [](const Expr& x) { return x * f32(3) + f32(0.25) - x / f32(7); },
       [](float x) { return x * 3 + 0.25f - x / 7; }, 1e-5f},
  };
}

TEST(Elementwise, SelectCompareAndIntrinsics) {
  std::vector<UnaryCase> cases = unaryCases();
  Buffer x = makeBuffer("x", DataType::float32(), {kN});
  std::vector<Buffer> params{x};
  std::vector<Stmt> stores;
  Expr i = var("i");
  for (const UnaryCase& c : cases) {
    Buffer out = makeBuffer(c.name, DataType::float32(), {kN});
    params.push_back(out);
    stores.push_back(store(out, i, c.build(load(x, i))));
  }
  PrimFunc f{"unary", params, forLoop(i, intImm(0), intImm(kN), ForKind::kVectorized, seq(stores))};
  CompiledLibrary lib({f});

  std::vector<float> xs = randomFloats(kN, -4, 4, 3);
  // Exact halves check round-half-to-even; zero and one check boundaries.
  std::vector<float> specials{2.5f, -2.5f, 0.5f, -0.5f, 1.5f, 0.0f, 1.0f, -1.0f};
  std::copy(specials.begin(), specials.end(), xs.begin());
  std::vector<std::vector<float>> outs(cases.size(), std::vector<float>(kN, -999));
  std::vector<void*> args{xs.data()};
  for (auto& o : outs) args.push_back(o.data());
  ASSERT_EQ(lib.call("unary", args), 0);
  for (size_t k = 0; k < cases.size(); ++k) {
    for (int64_t j = 0; j < kN; ++j) {
      float want = cases[k].reference(xs[j]);
      float tol = cases[k].tolerance * std::max(1.0f, std::fabs(want));
      ASSERT_NEAR(outs[k][j], want, tol) << cases[k].name << " at x=" << xs[j];
    }
  }
}

TEST(Elementwise, CastsBetweenTypes) {
  Buffer x = makeBuffer("x", DataType::float32(), {kN});
  Buffer n = makeBuffer("n", DataType::int32(), {kN});
  Buffer toInt = makeBuffer("to_int", DataType::int32(), {kN});
  Buffer toFloat = makeBuffer("to_float", DataType::float32(), {kN});
  Buffer toBool = makeBuffer("to_bool", DataType::boolean(), {kN});
  Buffer toU8 = makeBuffer("to_u8", DataType::uint8(), {kN});
  Buffer fromBool = makeBuffer("from_bool", DataType::float64(), {kN});
  Buffer wide = makeBuffer("wide", DataType::int64(), {kN});
  Expr i = var("i");
  Expr xi = load(x, i), ni = load(n, i);
  Stmt body = seq({
      store(toInt, i, cast(DataType::int32(), xi * floatImm(10))),
      store(toFloat, i, cast(DataType::float32(), ni) * floatImm(0.5)),
      store(toBool, i,
            compare(CompareOp::kNE, cast(DataType::boolean(), xi),
                    compare(CompareOp::kLT, ni, intImm(0, DataType::int32())))),
      store(toU8, i, cast(DataType::uint8(), ni)),
      store(fromBool, i, cast(DataType::float64(), cast(DataType::boolean(), ni))),
      store(wide, i, cast(DataType::int64(), ni) * intImm(3000000000)),
  });
  PrimFunc f{"casts",
             {x, n, toInt, toFloat, toBool, toU8, fromBool, wide},
             forLoop(i, intImm(0), intImm(kN), ForKind::kSerial, body)};
  CompiledLibrary lib({f});

  std::vector<float> xs = randomFloats(kN, -50, 50, 4);
  xs[0] = 0.0f;
  std::vector<int32_t> ns(kN);
  for (int64_t j = 0; j < kN; ++j) ns[j] = static_cast<int32_t>(j * 37 % 700) - 350;
  std::vector<int32_t> oInt(kN);
  std::vector<float> oFloat(kN);
  std::vector<uint8_t> oBool(kN, 7), oU8(kN);
  std::vector<double> oFromBool(kN);
  std::vector<int64_t> oWide(kN);
  ASSERT_EQ(lib.call("casts", {xs.data(), ns.data(), oInt.data(), oFloat.data(), oBool.data(),
                               oU8.data(), oFromBool.data(), oWide.data()}),
            0);
  for (int64_t j = 0; j < kN; ++j) {
    ASSERT_EQ(oInt[j], static_cast<int32_t>(xs[j] * 10.0f)) << j;
    ASSERT_EQ(oFloat[j], static_cast<float>(ns[j]) * 0.5f) << j;
    ASSERT_EQ(oBool[j], (xs[j] != 0) != (ns[j] < 0) ? 1 : 0) << j;
    ASSERT_EQ(oU8[j], static_cast<uint8_t>(ns[j])) << j;
    ASSERT_EQ(oFromBool[j], ns[j] != 0 ? 1.0 : 0.0) << j;
    ASSERT_EQ(oWide[j], static_cast<int64_t>(ns[j]) * 3000000000LL) << j;
  }
}

TEST(Elementwise, LetBindsAValueOnce) {
  Buffer x = makeBuffer("x", DataType::float32(), {kN});
  Buffer y = makeBuffer("y", DataType::float32(), {kN});
  Expr i = var("i");
  Expr t = var("t", DataType::float32());
  Expr j = var("j");
  // t = x[i] * x[i]; j = (kN - 1) - i; y[j] = t + t * t
  Stmt body = let(t, load(x, i) * load(x, i), let(j, intImm(kN - 1) - i, store(y, j, t + t * t)));
  PrimFunc f{"let_kernel", {x, y}, forLoop(i, intImm(0), intImm(kN), ForKind::kVectorized, body)};
  CompiledLibrary lib({f});
  std::vector<float> xs = randomFloats(kN, -2, 2, 5), ys(kN);
  ASSERT_EQ(lib.call("let_kernel", {xs.data(), ys.data()}), 0);
  for (int64_t k = 0; k < kN; ++k) {
    float tv = xs[k] * xs[k];
    ASSERT_NEAR(ys[kN - 1 - k], tv + tv * tv, 1e-5f * std::max(1.0f, tv + tv * tv)) << k;
  }
}

TEST(Elementwise, IfThenElseAndIntegerMinMax) {
  Buffer n = makeBuffer("n", DataType::int32(), {kN});
  Buffer y = makeBuffer("y", DataType::int32(), {kN});
  Expr i = var("i");
  Expr v = load(n, i);
  auto i32 = [](int64_t c) { return intImm(c, DataType::int32()); };
  Stmt body = ifThenElse(compare(CompareOp::kGE, v, i32(0)), store(y, i, min(v, i32(100))),
                         store(y, i, max(v * i32(2), i32(-150))));
  PrimFunc f{"branches", {n, y}, forLoop(i, intImm(0), intImm(kN), ForKind::kSerial, body)};
  CompiledLibrary lib({f});
  std::vector<int32_t> ns(kN), ys(kN);
  for (int64_t k = 0; k < kN; ++k) ns[k] = static_cast<int32_t>((k * 7919) % 601) - 300;
  ASSERT_EQ(lib.call("branches", {ns.data(), ys.data()}), 0);
  for (int64_t k = 0; k < kN; ++k) {
    int32_t want = ns[k] >= 0 ? std::min(ns[k], 100) : std::max(ns[k] * 2, -150);
    ASSERT_EQ(ys[k], want) << k;
  }
}

}  // namespace
}  // namespace kiln::codegen
