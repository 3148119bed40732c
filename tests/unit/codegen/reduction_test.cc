// Checks reductions through an allocated accumulator, serial and vectorized, against a scalar
// reference: the vectorized one may reorder the sum but must stay within float rounding of it.
#include <gtest/gtest.h>

#include <cmath>

#include "compiled_library.h"

namespace kiln::codegen {
namespace {

using namespace tir;
using testing::CompiledLibrary;

constexpr int64_t kDotRows = 17;

// out[r] = sum_c x[r][c] * w[c], accumulated in a one-element local buffer.
PrimFunc rowDot(const std::string& name, ForKind inner, int64_t kCols) {
  Buffer x = makeBuffer("x", DataType::float32(), {kDotRows, kCols});
  Buffer w = makeBuffer("w", DataType::float32(), {kCols});
  Buffer out = makeBuffer("out", DataType::float32(), {kDotRows});
  Buffer acc = makeBuffer("acc", DataType::float32(), {1});
  Expr r = var("r"), c = var("c");
  Stmt rowBody = allocate(
      acc, seq({store(acc, intImm(0), floatImm(0)),
                forLoop(c, intImm(0), intImm(kCols), inner,
                        store(acc, intImm(0),
                              load(acc, intImm(0)) + load(x, r * intImm(kCols) + c) * load(w, c))),
                store(out, r, load(acc, intImm(0)))}));
  return {name, {x, w, out}, forLoop(r, intImm(0), intImm(kDotRows), ForKind::kSerial, rowBody)};
}

void checkRowDot(const std::string& name, ForKind inner, int64_t kCols) {
  CompiledLibrary lib({rowDot(name, inner, kCols)});
  std::vector<float> x = testing::randomFloats(kDotRows * kCols, -1, 1, 11);
  std::vector<float> w = testing::randomFloats(kCols, -1, 1, 12);
  {
    std::vector<float> out(kDotRows, -1);
    ASSERT_EQ(lib.call(name, {x.data(), w.data(), out.data()}), 0);
    for (int64_t r = 0; r < kDotRows; ++r) {
      float ref = 0;
      double magnitude = 0;
      for (int64_t c = 0; c < kCols; ++c) {
        ref += x[r * kCols + c] * w[c];
        magnitude += std::fabs(x[r * kCols + c] * w[c]);
      }
      ASSERT_NEAR(out[r], ref, 1e-5 * magnitude) << name << " row " << r;
    }
  }
}

TEST(Reduction, SerialMatchesScalarReference) { checkRowDot("dot_serial", ForKind::kSerial, 1001); }

TEST(Reduction, VectorizedStaysWithinRoundingOfScalarReference) {
  checkRowDot("dot_vector", ForKind::kVectorized, 1001);
}

TEST(Reduction, UnrolledMatchesScalarReference) {
  checkRowDot("dot_unrolled", ForKind::kUnrolled, 24);
}

TEST(Reduction, LargeAccumulatorGoesToTheHeap) {
  // A 1 MiB local buffer (above the stack limit): out[k] = 2 * x[k] through it.
  constexpr int64_t kN = int64_t{256} * 1024;
  Buffer x = makeBuffer("x", DataType::float32(), {kN});
  Buffer out = makeBuffer("out", DataType::float32(), {kN});
  Buffer tmp = makeBuffer("tmp", DataType::float32(), {kN});
  Expr k = var("k");
  Stmt body = allocate(tmp, seq({forLoop(k, intImm(0), intImm(kN), ForKind::kVectorized,
                                         store(tmp, k, load(x, k) * floatImm(2))),
                                 forLoop(k, intImm(0), intImm(kN), ForKind::kVectorized,
                                         store(out, intImm(kN - 1) - k, load(tmp, k)))}));
  CompiledLibrary lib({PrimFunc{"heap_tmp", {x, out}, body}});
  std::vector<float> xs = testing::randomFloats(kN, -1, 1, 13), ys(kN);
  ASSERT_EQ(lib.call("heap_tmp", {xs.data(), ys.data()}), 0);
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(ys[kN - 1 - i], xs[i] * 2) << i;
}

}  // namespace
}  // namespace kiln::codegen
