// Classic range reduction plus minimax polynomials (the Cephes single-precision coefficients, and
// the Abramowitz-Stegun 7.1.26 form for erf away from zero). Every branch is a select, so the code
// is straight-line and vectorizes at any width.
#include "vector_math.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <initializer_list>
#include <limits>

namespace kiln::codegen {
namespace {

constexpr double kLog2e = 1.44269504088896341;
// ln 2 split so that n * kLn2Hi is exact for the n that occur.
constexpr double kLn2Hi = 0.693359375;
constexpr double kLn2Lo = -2.12194440e-4;
// Beyond these, exp overflows to infinity or (after flushing denormals) to zero.
constexpr double kExpMax = 88.72283935546875;
constexpr double kExpMin = -86.5;
constexpr double kMinNormal = 1.17549435e-38;

struct Emitter {
  llvm::IRBuilder<>& b;
  llvm::Type* ft;

  llvm::Value* c(double v) const { return llvm::ConstantFP::get(ft, v); }
  llvm::Type* intType() const { return ft->getWithNewType(b.getInt32Ty()); }
  llvm::Value* ci(int64_t v) const { return llvm::ConstantInt::get(intType(), v, true); }

  // ((c0 * x + c1) * x + c2) ...: highest degree first.
  llvm::Value* horner(llvm::Value* x, std::initializer_list<double> coeffs) const {
    llvm::Value* acc = nullptr;
    for (double k : coeffs) acc = acc == nullptr ? c(k) : b.CreateFAdd(b.CreateFMul(acc, x), c(k));
    return acc;
  }
  llvm::Value* abs(llvm::Value* x) const {
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  }
  llvm::Value* copySign(llvm::Value* mag, llvm::Value* sign) const {
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, mag, sign);
  }
  llvm::Value* isNan(llvm::Value* x) const { return b.CreateFCmpUNO(x, x); }
};

}  // namespace

llvm::Value* emitExpF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  Emitter e{b, x->getType()};
  // Clamp so that 2^(n-1) below is a normal float; NaN lanes are fixed at the end.
  llvm::Value* xc = b.CreateSelect(b.CreateFCmpOGT(x, e.c(kExpMax)), e.c(kExpMax), x);
  xc = b.CreateSelect(b.CreateFCmpOLT(xc, e.c(kExpMin)), e.c(kExpMin), xc);
  // x = n ln2 + r with |r| <= ln2 / 2.
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor,
                                          b.CreateFAdd(b.CreateFMul(xc, e.c(kLog2e)), e.c(0.5)));
  llvm::Value* r = b.CreateFSub(xc, b.CreateFMul(n, e.c(kLn2Hi)));
  r = b.CreateFSub(r, b.CreateFMul(n, e.c(kLn2Lo)));
  llvm::Value* p = e.horner(r, {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2,
                                1.6666665459E-1, 5.0000001201E-1});
  p = b.CreateFAdd(b.CreateFAdd(b.CreateFMul(p, b.CreateFMul(r, r)), r), e.c(1.0));
  // 2^n as 2^(n-1) * 2, so that n = 128 (x near the overflow bound) stays representable.
  llvm::Value* bits = b.CreateShl(b.CreateAdd(b.CreateFPToSI(n, e.intType()), e.ci(126)), 23);
  llvm::Value* scale = b.CreateBitCast(bits, e.ft);
  llvm::Value* y = b.CreateFMul(b.CreateFMul(p, scale), e.c(2.0));
  y = b.CreateSelect(b.CreateFCmpOGT(x, e.c(kExpMax)), e.c(std::numeric_limits<double>::infinity()),
                     y);
  y = b.CreateSelect(b.CreateFCmpOLT(x, e.c(kExpMin)), e.c(0.0), y);
  return b.CreateSelect(e.isNan(x), x, y);
}

llvm::Value* emitLogF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  Emitter e{b, x->getType()};
  // Denormal inputs are scaled into the normal range first.
  llvm::Value* tiny = b.CreateFCmpOLT(x, e.c(kMinNormal));
  llvm::Value* xs = b.CreateSelect(tiny, b.CreateFMul(x, e.c(8388608.0)), x);
  llvm::Value* bits = b.CreateBitCast(xs, e.intType());
  // x = m * 2^k with m in [0.5, 1).
  llvm::Value* k = b.CreateSub(b.CreateLShr(bits, 23), e.ci(126));
  k = b.CreateSub(k, b.CreateSelect(tiny, e.ci(23), e.ci(0)));
  llvm::Value* m =
      b.CreateBitCast(b.CreateOr(b.CreateAnd(bits, e.ci(0x007fffff)), e.ci(0x3f000000)), e.ft);
  llvm::Value* kf = b.CreateSIToFP(k, e.ft);
  // Recentre m into [sqrt(0.5), sqrt(2)) so the polynomial argument m - 1 stays small.
  llvm::Value* low = b.CreateFCmpOLT(m, e.c(0.707106781186547524));
  kf = b.CreateSelect(low, b.CreateFSub(kf, e.c(1.0)), kf);
  m = b.CreateFSub(b.CreateSelect(low, b.CreateFAdd(m, m), m), e.c(1.0));
  llvm::Value* z = b.CreateFMul(m, m);
  llvm::Value* p = e.horner(
      m, {7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
          -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1});
  llvm::Value* y = b.CreateFMul(b.CreateFMul(p, m), z);
  y = b.CreateFAdd(y, b.CreateFMul(kf, e.c(kLn2Lo)));
  y = b.CreateFSub(y, b.CreateFMul(z, e.c(0.5)));
  y = b.CreateFAdd(b.CreateFAdd(m, y), b.CreateFMul(kf, e.c(kLn2Hi)));
  constexpr double kInf = std::numeric_limits<double>::infinity();
  y = b.CreateSelect(b.CreateFCmpOEQ(x, e.c(kInf)), e.c(kInf), y);
  y = b.CreateSelect(b.CreateFCmpOEQ(x, e.c(0.0)), e.c(-kInf), y);
  y = b.CreateSelect(b.CreateFCmpOLT(x, e.c(0.0)), e.c(std::nan("")), y);
  return b.CreateSelect(e.isNan(x), x, y);
}

llvm::Value* emitTanhF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  Emitter e{b, x->getType()};
  llvm::Value* ax = e.abs(x);
  // Near zero an odd polynomial; elsewhere 1 - 2 / (exp(2|x|) + 1), which saturates cleanly.
  llvm::Value* z = b.CreateFMul(x, x);
  llvm::Value* p = e.horner(z, {-5.70498872745E-3, 2.06390887954E-2, -5.37397155531E-2,
                                1.33314422036E-1, -3.33332819422E-1});
  llvm::Value* small = b.CreateFAdd(b.CreateFMul(b.CreateFMul(p, z), x), x);
  llvm::Value* ex = emitExpF32(b, b.CreateFMul(ax, e.c(2.0)));
  llvm::Value* large = b.CreateFSub(e.c(1.0), b.CreateFDiv(e.c(2.0), b.CreateFAdd(ex, e.c(1.0))));
  return b.CreateSelect(b.CreateFCmpOLT(ax, e.c(0.625)), small, e.copySign(large, x));
}

llvm::Value* emitErfF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  Emitter e{b, x->getType()};
  llvm::Value* ax = e.abs(x);
  // |x| < 0.5: Maclaurin series 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320).
  llvm::Value* z = b.CreateFMul(x, x);
  llvm::Value* series = e.horner(z, {-1.0 / 1320, 1.0 / 216, -1.0 / 42, 1.0 / 10, -1.0 / 3, 1.0});
  llvm::Value* small = b.CreateFMul(b.CreateFMul(series, x), e.c(1.1283791670955126));
  // Otherwise 1 - t * P(t) * exp(-x^2) with t = 1 / (1 + p|x|): absolute error below 1.5e-7.
  llvm::Value* t = b.CreateFDiv(e.c(1.0), b.CreateFAdd(e.c(1.0), b.CreateFMul(ax, e.c(0.3275911))));
  llvm::Value* poly = b.CreateFMul(
      e.horner(t, {1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592}), t);
  llvm::Value* large =
      b.CreateFSub(e.c(1.0), b.CreateFMul(poly, emitExpF32(b, b.CreateFNeg(b.CreateFMul(ax, ax)))));
  return b.CreateSelect(b.CreateFCmpOLT(ax, e.c(0.5)), small, e.copySign(large, x));
}

}  // namespace kiln::codegen
