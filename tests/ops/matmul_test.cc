// Gemm (transA/transB, alpha, beta, broadcast C) and MatMul (batch broadcasting, 1-D operands)
// end to end, against the reference.
#include <gtest/gtest.h>

#include "reference.h"

namespace kiln::optest {
namespace {

TEST(Gemm, TransposesAlphaBetaAndBias) {
  checkAtAllLevels([](OpGraph& g) {
    uint32_t seed = 1;
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (const Shape& cs : {Shape{}, Shape{1}, Shape{7}, Shape{5, 1}, Shape{5, 7}}) {
          int64_t m = 5, k = 9, n = 7;
          HostTensor a = randomTensor(ta ? Shape{k, m} : Shape{m, k}, seed++);
          HostTensor b = randomTensor(tb ? Shape{n, k} : Shape{k, n}, seed++);
          HostTensor c = randomTensor(cs, seed++);
          double alpha = ta ? 0.5 : 1.0, beta = tb ? 2.0 : 1.0;
          ir::Value* y = g.node("Gemm", {g.input(a), g.constant(b), g.constant(c)},
                                attrs({{"transA", int64_t{ta}},
                                       {"transB", int64_t{tb}},
                                       {"alpha", alpha},
                                       {"beta", beta}}));
          g.expect(y, refGemm(a, b, &c, ta, tb, alpha, beta),
                   strCat("Gemm transA=", ta, " transB=", tb, " C", runtime::shapeStr(cs)));
        }
  });
}

TEST(Gemm, LargeWithoutBias) {
  checkAtAllLevels([](OpGraph& g) {
    HostTensor a = randomTensor({3, 300}, 1);
    HostTensor b = randomTensor({300, 1000}, 2);
    g.expect(g.node("Gemm", {g.input(a), g.constant(b)}),
             refGemm(a, b, nullptr, false, false, 1, 1), "Gemm 3x300x1000");
    HostTensor bt = randomTensor({513, 300}, 3);
    g.expect(g.node("Gemm", {g.input(a), g.constant(bt)}, attrs({{"transB", int64_t{1}}})),
             refGemm(a, bt, nullptr, false, true, 1, 1), "Gemm transB 3x300x513");
  });
}

TEST(MatMul, BatchBroadcastingAndVectors) {
  checkAtAllLevels([](OpGraph& g) {
    struct Case {
      Shape a, b;
    };
    uint32_t seed = 50;
    for (const Case& c :
         {Case{{4, 6}, {6, 5}}, Case{{2, 3, 4, 6}, {6, 5}}, Case{{3, 4, 6}, {3, 6, 5}},
          Case{{2, 1, 4, 6}, {3, 6, 5}}, Case{{6}, {6, 5}}, Case{{4, 6}, {6}}, Case{{6}, {6}},
          Case{{2, 4, 6}, {6}}, Case{{1, 40, 33}, {33, 70}}, Case{{17, 64}, {64, 1}}}) {
      HostTensor a = randomTensor(c.a, seed++);
      HostTensor b = randomTensor(c.b, seed++);
      ir::Value* y = g.node("MatMul", {g.input(a), g.input(b)});
      g.expect(y, refMatMul(a, b),
               strCat("MatMul ", runtime::shapeStr(c.a), " x ", runtime::shapeStr(c.b)));
    }
  });
}

// A constant right-hand side is packed at compile time (pack-matmul) and every leading dim of A
// becomes a GEMM row: sizes that are not multiples of any tile (197 rows, 129 columns, odd K),
// and a K large enough to be blocked.
TEST(MatMul, ConstantRightHandSideOfAnySize) {
  checkAtAllLevels([](OpGraph& g) {
    struct Case {
      Shape a, b;
    };
    uint32_t seed = 80;
    for (const Case& c :
         {Case{{197, 192}, {192, 768}}, Case{{1, 129, 64}, {64, 129}}, Case{{2, 3, 17}, {17, 33}},
          Case{{5}, {5, 40}}, Case{{128, 1, 24}, {24, 7}}, Case{{3, 300}, {300, 1}}}) {
      HostTensor a = randomTensor(c.a, seed++);
      HostTensor b = randomTensor(c.b, seed++);
      ir::Value* y = g.node("MatMul", {g.input(a), g.constant(b)});
      g.expect(y, refMatMul(a, b),
               strCat("MatMul ", runtime::shapeStr(c.a), " x constant ", runtime::shapeStr(c.b)));
    }
  });
}

}  // namespace
}  // namespace kiln::optest
