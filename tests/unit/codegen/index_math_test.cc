// Checks nested loops with negative bounds and integer division/modulo of every rounding kind on
// negative operands, against a floor computed in double precision.
#include <gtest/gtest.h>

#include <cmath>

#include "compiled_library.h"

namespace kiln::codegen {
namespace {

using namespace tir;
using testing::CompiledLibrary;

constexpr int64_t kILo = -6, kIExtent = 13, kJExtent = 7;

int64_t refFloorDiv(int64_t a, int64_t b) {
  return static_cast<int64_t>(std::floor(static_cast<double>(a) / static_cast<double>(b)));
}
int64_t refFloorMod(int64_t a, int64_t b) { return a - refFloorDiv(a, b) * b; }

TEST(IndexMath, FloorAndTruncatingDivisionOnNegatives) {
  const int64_t n = kIExtent * kJExtent;
  Expr i = var("i"), j = var("j");
  Expr a = i * intImm(3) - j;  // spans negative and positive values
  Expr d = j + intImm(1);      // a variable divisor
  Expr flat = (i - intImm(kILo)) * intImm(kJExtent) + j;
  std::vector<Expr> values{
      binary(BinaryOp::kFloorDiv, a, intImm(4)),
      binary(BinaryOp::kFloorMod, a, intImm(4)),
      binary(BinaryOp::kFloorDiv, a, intImm(-3)),
      binary(BinaryOp::kFloorMod, a, intImm(-3)),
      binary(BinaryOp::kFloorDiv, a, d),
      binary(BinaryOp::kFloorMod, a, intImm(0) - d),
      a / intImm(4),
      binary(BinaryOp::kMod, a, intImm(4)),
  };
  std::vector<Buffer> outs;
  std::vector<Stmt> stores;
  for (size_t k = 0; k < values.size(); ++k) {
    outs.push_back(makeBuffer("out" + std::to_string(k), DataType::int64(), {n}));
    stores.push_back(store(outs.back(), flat, values[k]));
  }
  Stmt body = forLoop(i, intImm(kILo), intImm(kIExtent), ForKind::kSerial,
                      forLoop(j, intImm(0), intImm(kJExtent), ForKind::kSerial, seq(stores)));
  CompiledLibrary lib({PrimFunc{"index_math", outs, body}});

  std::vector<std::vector<int64_t>> got(values.size(), std::vector<int64_t>(n, 12345));
  std::vector<void*> args;
  args.reserve(got.size());
  for (auto& g : got) args.push_back(g.data());
  ASSERT_EQ(lib.call("index_math", args), 0);
  for (int64_t iv = kILo; iv < kILo + kIExtent; ++iv) {
    for (int64_t jv = 0; jv < kJExtent; ++jv) {
      int64_t av = iv * 3 - jv, dv = jv + 1, at = (iv - kILo) * kJExtent + jv;
      std::vector<int64_t> want{refFloorDiv(av, 4),
                                refFloorMod(av, 4),
                                refFloorDiv(av, -3),
                                refFloorMod(av, -3),
                                refFloorDiv(av, dv),
                                refFloorMod(av, -dv),
                                av / 4,
                                av % 4};
      for (size_t k = 0; k < want.size(); ++k) {
        ASSERT_EQ(got[k][at], want[k]) << "value " << k << " at i=" << iv << " j=" << jv;
      }
    }
  }
}

TEST(IndexMath, TransposeWithComputedIndices) {
  // y[c][r] = x[r][c] for a 37x23 matrix, with the source index split by floordiv/floormod.
  constexpr int64_t kRows = 37, kCols = 23;
  Buffer x = makeBuffer("x", DataType::float32(), {kRows, kCols});
  Buffer y = makeBuffer("y", DataType::float32(), {kCols, kRows});
  Expr k = var("k");
  Expr r = binary(BinaryOp::kFloorDiv, k, intImm(kCols));
  Expr c = binary(BinaryOp::kFloorMod, k, intImm(kCols));
  Stmt body = forLoop(k, intImm(0), intImm(kRows * kCols), ForKind::kSerial,
                      store(y, c * intImm(kRows) + r, load(x, k)));
  CompiledLibrary lib({PrimFunc{"transpose", {x, y}, body}});
  std::vector<float> xs = testing::randomFloats(kRows * kCols, -1, 1, 9), ys(kRows * kCols);
  ASSERT_EQ(lib.call("transpose", {xs.data(), ys.data()}), 0);
  for (int64_t rv = 0; rv < kRows; ++rv) {
    for (int64_t cv = 0; cv < kCols; ++cv) ASSERT_EQ(ys[cv * kRows + rv], xs[rv * kCols + cv]);
  }
}

}  // namespace
}  // namespace kiln::codegen
