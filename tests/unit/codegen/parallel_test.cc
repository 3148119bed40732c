// Checks outlined parallel loops: the closure carries buffers, outer loop variables and lets; the
// pool is used when the runtime installed one and skipped when not; failures propagate.
#include <gtest/gtest.h>

#include <cmath>

#include "compiled_library.h"

namespace kiln::codegen {
namespace {

using namespace tir;
using testing::ChunkingPool;
using testing::CompiledLibrary;

constexpr int64_t kBatch = 2, kRows = 31, kCols = 45;

// for b (serial): let off = b*R*C, k = float(b) + 0.5
//   for r (parallel): for c (vectorized): y[off + r*C + c] = x[off + r*C + c] * k + w[c]
PrimFunc scaleRows() {
  Buffer x = makeBuffer("x", DataType::float32(), {kBatch, kRows, kCols});
  Buffer w = makeBuffer("w", DataType::float32(), {kCols});
  Buffer y = makeBuffer("y", DataType::float32(), {kBatch, kRows, kCols});
  Expr b = var("b"), r = var("r"), c = var("c"), off = var("off");
  Expr k = var("k", DataType::float32());
  Expr at = off + r * intImm(kCols) + c;
  Stmt inner = forLoop(c, intImm(0), intImm(kCols), ForKind::kVectorized,
                       store(y, at, load(x, at) * k + load(w, c)));
  Stmt rows = forLoop(r, intImm(0), intImm(kRows), ForKind::kParallel, inner);
  Stmt body = let(off, b * intImm(kRows * kCols),
                  let(k, cast(DataType::float32(), b) + floatImm(0.5), rows));
  return {"scale_rows", {x, w, y}, forLoop(b, intImm(0), intImm(kBatch), ForKind::kSerial, body)};
}

void checkScaleRows(const CompiledLibrary& lib) {
  std::vector<float> x = testing::randomFloats(kBatch * kRows * kCols, -1, 1, 21);
  std::vector<float> w = testing::randomFloats(kCols, -1, 1, 22);
  std::vector<float> y(x.size(), -99);
  ASSERT_EQ(lib.call("scale_rows", {x.data(), w.data(), y.data()}), 0);
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t i = 0; i < kRows * kCols; ++i) {
      int64_t at = b * kRows * kCols + i;
      float want = x[at] * (static_cast<float>(b) + 0.5f) + w[i % kCols];
      ASSERT_NEAR(y[at], want, 1e-6f) << at;
    }
  }
}

TEST(Parallel, RunsInlineWithoutARuntime) {
  CompiledLibrary lib({scaleRows()});
  ChunkingPool::reset();
  checkScaleRows(lib);
  EXPECT_EQ(ChunkingPool::launches, 0);
}

TEST(Parallel, UsesThePoolWhenInstalled) {
  CompiledLibrary lib({scaleRows()});
  ChunkingPool::reset();
  lib.setBackendApi(ChunkingPool::api());
  checkScaleRows(lib);
  EXPECT_EQ(ChunkingPool::launches, kBatch);
  EXPECT_EQ(ChunkingPool::bodyCalls, kBatch * 3);
  lib.setBackendApi(nullptr);
}

TEST(Parallel, PropagatesAFailedLaunch) {
  CompiledLibrary lib({scaleRows()});
  ChunkingPool::reset();
  ChunkingPool::failWith = 7;
  lib.setBackendApi(ChunkingPool::api());
  std::vector<float> x(kBatch * kRows * kCols, 1), w(kCols, 1), y(x.size(), 0);
  EXPECT_EQ(lib.call("scale_rows", {x.data(), w.data(), y.data()}), 7);
  EXPECT_EQ(ChunkingPool::launches, 1);  // stops at the first failure
  lib.setBackendApi(nullptr);
  ChunkingPool::reset();
}

// Row maxima with a per-iteration local accumulator inside the parallel body, a shared local
// buffer written in parallel and read afterwards, and a nested parallel loop that must run
// serially.
PrimFunc rowMaxPlusOne() {
  Buffer x = makeBuffer("x", DataType::float32(), {kRows, kCols});
  Buffer y = makeBuffer("y", DataType::float32(), {kRows});
  Buffer shared = makeBuffer("shared", DataType::float32(), {kRows});
  Buffer acc = makeBuffer("acc", DataType::float32(), {1});
  Expr r = var("r"), c = var("c"), r2 = var("r2");
  Stmt reduce =
      allocate(acc, seq({store(acc, intImm(0), floatImm(-1e30)),
                         forLoop(c, intImm(0), intImm(kCols), ForKind::kParallel,
                                 store(acc, intImm(0),
                                       max(load(acc, intImm(0)), load(x, r * intImm(kCols) + c)))),
                         store(shared, r, load(acc, intImm(0)))}));
  Stmt body =
      allocate(shared, seq({forLoop(r, intImm(0), intImm(kRows), ForKind::kParallel, reduce),
                            forLoop(r2, intImm(0), intImm(kRows), ForKind::kSerial,
                                    store(y, r2, load(shared, r2) + floatImm(1)))}));
  return {"row_max", {x, y}, body};
}

TEST(Parallel, LocalBuffersAndNestedParallelLoops) {
  CompiledLibrary lib({rowMaxPlusOne()});
  ChunkingPool::reset();
  lib.setBackendApi(ChunkingPool::api());
  std::vector<float> x = testing::randomFloats(kRows * kCols, -5, 5, 23), y(kRows, 0);
  ASSERT_EQ(lib.call("row_max", {x.data(), y.data()}), 0);
  EXPECT_EQ(ChunkingPool::launches, 1);  // the inner parallel loop ran serially
  EXPECT_EQ(ChunkingPool::bodyCalls, 3);
  for (int64_t r = 0; r < kRows; ++r) {
    float m = -1e30f;
    for (int64_t c = 0; c < kCols; ++c) m = std::max(m, x[r * kCols + c]);
    ASSERT_EQ(y[r], m + 1) << r;
  }
  lib.setBackendApi(nullptr);
}

TEST(Parallel, EmptyRangeDoesNotLaunch) {
  Buffer y = makeBuffer("y", DataType::float32(), {4});
  Expr r = var("r");
  Stmt body = forLoop(r, intImm(0), intImm(0), ForKind::kParallel, store(y, r, floatImm(1)));
  CompiledLibrary lib({PrimFunc{"empty", {y}, body}});
  ChunkingPool::reset();
  lib.setBackendApi(ChunkingPool::api());
  std::vector<float> ys(4, 0);
  EXPECT_EQ(lib.call("empty", {ys.data()}), 0);
  EXPECT_EQ(ChunkingPool::launches, 0);
  lib.setBackendApi(nullptr);
}

}  // namespace
}  // namespace kiln::codegen
