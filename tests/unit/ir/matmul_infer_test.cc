// MatMul (numpy semantics) and Gemm shape inference.
#include <random>

#include "ir_test_util.h"

namespace kiln::ir {
namespace {

using testing::f32;
using testing::OneNode;

TEST(MatMulInferTest, VectorsAndMatrices) {
  OneNode t;
  EXPECT_EQ(t.infer("MatMul", {t.in(f32({3, 4})), t.in(f32({4, 5}))}), f32({3, 5}));
  EXPECT_EQ(t.infer("MatMul", {t.in(f32({4})), t.in(f32({4, 5}))}), f32({5}));
  EXPECT_EQ(t.infer("MatMul", {t.in(f32({3, 4})), t.in(f32({4}))}), f32({3}));
  EXPECT_EQ(t.infer("MatMul", {t.in(f32({4})), t.in(f32({4}))}), f32({}));
  EXPECT_EQ(t.infer("MatMul", {t.in(f32({4})), t.in(f32({2, 4, 5}))}), f32({2, 5}));
}

TEST(MatMulInferTest, RandomBatchBroadcast) {
  std::mt19937 rng(99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 300; ++iter) {
    int batchRank = pick(0, 3);
    Shape batchA, batchB, batchOut;
    for (int i = 0; i < batchRank; ++i) {
      int64_t d = pick(1, 4);
      int kind = pick(0, 2);  // equal, A broadcasts, B broadcasts
      batchA.push_back(kind == 1 ? 1 : d);
      batchB.push_back(kind == 2 ? 1 : d);
      batchOut.push_back(d);
    }
    // Drop leading dims of one side sometimes: lower rank broadcasts too.
    size_t dropA = batchA.empty() ? 0 : static_cast<size_t>(pick(0, 1));
    Shape a(batchA.begin() + static_cast<std::ptrdiff_t>(dropA), batchA.end());
    Shape b = batchB;
    if (dropA) batchOut[0] = batchB[0];
    int64_t m = pick(1, 5), k = pick(1, 5), n = pick(1, 5);
    a.push_back(m);
    a.push_back(k);
    b.push_back(k);
    b.push_back(n);
    Shape out = batchOut;
    out.push_back(m);
    out.push_back(n);
    OneNode t;
    EXPECT_EQ(t.infer("MatMul", {t.in(f32(a)), t.in(f32(b))}), f32(out))
        << f32(a).str() << " x " << f32(b).str();
  }
}

TEST(MatMulInferTest, Errors) {
  OneNode t;
  std::string e = t.error("MatMul", {t.in(f32({3, 4})), t.in(f32({5, 6}))});
  EXPECT_NE(e.find("inner dimensions differ: A float32[3,4] has K=4 but B float32[5,6] has K=5"),
            std::string::npos)
      << e;
  e = t.error("MatMul", {t.in(f32({2, 3, 4})), t.in(f32({3, 4, 5}))});
  EXPECT_NE(e.find("cannot be broadcast"), std::string::npos) << e;
  e = t.error("MatMul", {t.in(f32({})), t.in(f32({3}))});
  EXPECT_NE(e.find("no scalars"), std::string::npos) << e;
  e = t.error("MatMul", {t.in(f32({3, 4})), t.in(testing::i64({4, 5}))});
  EXPECT_NE(e.find("expected equal types"), std::string::npos) << e;
}

TEST(GemmInferTest, TransposesAndBias) {
  OneNode t;
  EXPECT_EQ(t.infer("Gemm", {t.in(f32({3, 4})), t.in(f32({4, 5}))}), f32({3, 5}));
  EXPECT_EQ(
      t.infer("Gemm", {t.in(f32({4, 3})), t.in(f32({5, 4})), t.in(f32({5}))},
              testing::attrs({{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 2.0}})),
      f32({3, 5}));
  EXPECT_EQ(t.infer("Gemm", {t.in(f32({3, 4})), t.in(f32({4, 5})), t.in(f32({3, 1}))}),
            f32({3, 5}));
  EXPECT_EQ(t.infer("Gemm", {t.in(f32({3, 4})), t.in(f32({4, 5})), t.in(f32({}))}), f32({3, 5}));
}

TEST(GemmInferTest, Errors) {
  OneNode t;
  std::string e = t.error("Gemm", {t.in(f32({3, 4})), t.in(f32({4, 5})), t.in(f32({3}))});
  EXPECT_NE(e.find("C is float32[3]; expected a shape unidirectionally broadcastable to [3,5]"),
            std::string::npos)
      << e;
  e = t.error("Gemm", {t.in(f32({3, 4})), t.in(f32({5, 4}))});
  EXPECT_NE(e.find("has K=4 but B float32[5,4] has K=5"), std::string::npos) << e;
  e = t.error("Gemm", {t.in(f32({2, 3, 4})), t.in(f32({4, 5}))});
  EXPECT_NE(e.find("expected two matrices"), std::string::npos) << e;
  e = t.error("Gemm", {t.in(f32({3, 4})), t.in(f32({4, 5}))},
              testing::attrs({{"alpha", std::string("x")}}));
  EXPECT_NE(e.find("'alpha' is string, expected float"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::ir
