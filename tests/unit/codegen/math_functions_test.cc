// Checks the generated exp, log, tanh, erf and sigmoid over dense sweeps of their float32 range and
// at the special values (infinities, NaN, zeros, denormals) against double-precision libm.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "compiled_library.h"

namespace kiln::codegen {
namespace {

using namespace tir;
using testing::CompiledLibrary;

constexpr float kInf = std::numeric_limits<float>::infinity();

struct MathCase {
  const char* name;
  Intrinsic f;
  double (*reference)(double);
  double relTol, absTol;
};

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double stdExp(double x) { return std::exp(x); }
double stdLog(double x) { return std::log(x); }
double stdTanh(double x) { return std::tanh(x); }
double stdErf(double x) { return std::erf(x); }

// X rounded to float16 (to nearest, ties to even) and back: static_cast<_Float16>, which clang
// before 15 cannot compile for x86 (so clang-tidy-14 could not check this file).
float roundToHalf(float x) {
  if (!std::isfinite(x) || x == 0) return x;
  int e;
  std::frexp(x, &e);  // |x| = m * 2^e, m in [0.5, 1)
  // 11 significant bits down to the smallest normal float16 (2^-14), steps of 2^-24 below.
  double step = std::ldexp(1.0, std::max(e, -13) - 11);
  double r = std::nearbyint(x / step) * step;
  return std::fabs(r) > 65504 ? std::copysign(kInf, x) : static_cast<float>(r);
}

const MathCase kCases[] = {
    {"exp", Intrinsic::kExp, stdExp, 4e-7, 0},
    {"log", Intrinsic::kLog, stdLog, 4e-7, 1e-7},
    {"tanh", Intrinsic::kTanh, stdTanh, 4e-7, 1e-7},
    {"erf", Intrinsic::kErf, stdErf, 4e-7, 2e-7},
    {"sigmoid", Intrinsic::kSigmoid, sigmoid, 4e-7, 0},
};

std::vector<float> sweep() {
  std::vector<float> xs;
  for (double x = -100; x <= 100; x += 0.0037) xs.push_back(static_cast<float>(x));
  for (double x = -2; x <= 2; x += 1.0 / 4096) xs.push_back(static_cast<float>(x));
  for (double x = 1e-40; x < 1e38; x *= 1.07) {
    xs.push_back(static_cast<float>(x));
    xs.push_back(static_cast<float>(-x));
  }
  return xs;
}

class MathFunctions : public ::testing::Test {
 protected:
  // One kernel computing every case over the same input, in a vectorized loop.
  static std::vector<std::vector<float>> run(const std::vector<float>& xs, DataType t) {
    int64_t n = static_cast<int64_t>(xs.size());
    Buffer x = makeBuffer("x", DataType::float32(), {n});
    std::vector<Buffer> params{x};
    std::vector<Stmt> stores;
    Expr i = var("i");
    for (const MathCase& c : kCases) {
      params.push_back(makeBuffer(c.name, DataType::float32(), {n}));
      Expr in = cast(t, load(x, i));
      stores.push_back(store(params.back(), i, cast(DataType::float32(), call(c.f, {in}))));
    }
    CompiledLibrary lib({PrimFunc{
        "math", params, forLoop(i, intImm(0), intImm(n), ForKind::kVectorized, seq(stores))}});
    std::vector<std::vector<float>> outs(std::size(kCases), std::vector<float>(n));
    std::vector<void*> args{const_cast<float*>(xs.data())};
    for (auto& o : outs) args.push_back(o.data());
    EXPECT_EQ(lib.call("math", args), 0);
    return outs;
  }

  static void expectClose(const MathCase& c, float x, float got, double scale = 1) {
    double want = c.reference(x);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << c.name << "(" << x << ") = " << got;
    } else if (std::isinf(want) || std::fabs(want) > std::numeric_limits<float>::max()) {
      EXPECT_EQ(got, want > 0 ? kInf : -kInf) << c.name << "(" << x << ")";
    } else {
      double tol = scale * (c.relTol * std::fabs(want) + c.absTol) + 1e-37;
      ASSERT_NEAR(got, want, tol) << c.name << "(" << x << ")";
    }
  }
};

TEST_F(MathFunctions, Float32SweepsMatchDoublePrecision) {
  std::vector<float> xs = sweep();
  auto outs = run(xs, DataType::float32());
  for (size_t k = 0; k < std::size(kCases); ++k) {
    for (size_t j = 0; j < xs.size(); ++j) expectClose(kCases[k], xs[j], outs[k][j]);
  }
}

TEST_F(MathFunctions, SpecialValues) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  float denorm = std::numeric_limits<float>::denorm_min() * 1000;
  std::vector<float> xs{0.0f,  -0.0f, kInf,   -kInf,   nan,    denorm, -denorm,
                        88.7f, 88.8f, -88.0f, -104.0f, 1e-30f, 1.0f,   -1.0f};
  auto outs = run(xs, DataType::float32());
  auto at = [&](const char* name, float x) {
    for (size_t k = 0; k < std::size(kCases); ++k) {
      if (std::string(kCases[k].name) != name) continue;
      for (size_t j = 0; j < xs.size(); ++j) {
        if (std::bit_cast<uint32_t>(xs[j]) == std::bit_cast<uint32_t>(x)) return outs[k][j];
      }
    }
    ADD_FAILURE() << "no " << name << "(" << x << ")";
    return 0.0f;
  };
  EXPECT_EQ(at("exp", 0.0f), 1.0f);
  EXPECT_EQ(at("exp", kInf), kInf);
  EXPECT_EQ(at("exp", -kInf), 0.0f);
  EXPECT_EQ(at("exp", 88.8f), kInf);
  EXPECT_GT(at("exp", 88.7f), 3e38f);
  EXPECT_EQ(at("exp", -104.0f), 0.0f);
  EXPECT_EQ(at("log", 0.0f), -kInf);
  EXPECT_EQ(at("log", -0.0f), -kInf);
  EXPECT_EQ(at("log", kInf), kInf);
  EXPECT_TRUE(std::isnan(at("log", -1.0f)));
  EXPECT_TRUE(std::isnan(at("log", -kInf)));
  EXPECT_NEAR(at("log", denorm), std::log(static_cast<double>(denorm)), 1e-5);
  EXPECT_EQ(at("log", 1.0f), 0.0f);
  EXPECT_EQ(at("tanh", kInf), 1.0f);
  EXPECT_EQ(at("tanh", -kInf), -1.0f);
  EXPECT_EQ(at("tanh", 1e-30f), 1e-30f);
  EXPECT_EQ(at("erf", kInf), 1.0f);
  EXPECT_EQ(at("erf", -kInf), -1.0f);
  EXPECT_EQ(at("sigmoid", -kInf), 0.0f);
  EXPECT_EQ(at("sigmoid", kInf), 1.0f);
  EXPECT_EQ(at("sigmoid", 0.0f), 0.5f);
  for (const MathCase& c : kCases) EXPECT_TRUE(std::isnan(at(c.name, nan))) << c.name;
}

TEST_F(MathFunctions, HalfAndDoubleWidths) {
  std::vector<float> xs;
  for (double x = -6; x <= 6; x += 0.01) xs.push_back(static_cast<float>(x));
  auto doubles = run(xs, DataType::float64());
  auto halves = run(xs, DataType::float16());
  for (size_t k = 0; k < std::size(kCases); ++k) {
    for (size_t j = 0; j < xs.size(); ++j) {
      if (kCases[k].f == Intrinsic::kLog && xs[j] <= 0) continue;
      expectClose(kCases[k], xs[j], doubles[k][j]);
      // float16 has an 11-bit significand: its rounding of x and of the result dominate.
      double want = kCases[k].reference(roundToHalf(xs[j]));
      ASSERT_NEAR(halves[k][j], want, 2e-3 * std::max(1.0, std::fabs(want)))
          << kCases[k].name << "(" << xs[j] << ") in float16";
    }
  }
}

}  // namespace
}  // namespace kiln::codegen
