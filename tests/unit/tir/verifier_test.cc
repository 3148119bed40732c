// Checks that the verifier accepts well-formed kernels and names each kind of malformation.
#include "kiln/tir/verifier.h"

#include <gtest/gtest.h>

#include "kiln/support/error.h"

namespace kiln::tir {
namespace {

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const std::string& p : problems) {
    if (p.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(TirVerifier, AcceptsAWellFormedKernel) {
  Buffer x = makeBuffer("x", DataType::float32(), {32});
  Buffer t = makeBuffer("t", DataType::float32(), {16});
  Expr i = var("i");
  Stmt body = forLoop(i, intImm(0), intImm(2), ForKind::kSerial,
                      allocate(t, seq({store(t, ramp(intImm(0), intImm(1), 16),
                                             load(x, ramp(i * intImm(16), intImm(1), 16))),
                                       store(x, ramp(i * intImm(16), intImm(1), 16),
                                             load(t, ramp(intImm(0), intImm(1), 16)))})));
  EXPECT_TRUE(verify(PrimFunc{"ok", {x}, body}).empty());
  EXPECT_NO_THROW(verifyOrThrow(PrimFunc{"ok", {x}, body}));
}

TEST(TirVerifier, FindsUnboundVariablesAndWrongTypes) {
  Buffer x = makeBuffer("x", DataType::float32(), {8});
  Expr i = var("i");
  EXPECT_TRUE(mentions(verify(PrimFunc{"k", {x}, store(x, i, floatImm(0.0))}),
                       "variable 'i' is used outside"));
  Stmt wrongType =
      forLoop(i, intImm(0), intImm(8), ForKind::kSerial,
              store(x, intImm(0), cast(DataType::float32(), var("i", DataType::int32()))));
  EXPECT_TRUE(mentions(verify(PrimFunc{"k", {x}, wrongType}), "used as int32 but bound as int64"));
  Stmt rebound =
      forLoop(i, intImm(0), intImm(2), ForKind::kSerial,
              forLoop(i, intImm(0), intImm(2), ForKind::kSerial, store(x, i, floatImm(0.0))));
  EXPECT_TRUE(mentions(verify(PrimFunc{"k", {x}, rebound}), "bound again"));
}

TEST(TirVerifier, FindsBuffersOutOfScopeAndOutOfBounds) {
  Buffer x = makeBuffer("x", DataType::float32(), {8});
  Buffer t = makeBuffer("t", DataType::float32(), {4});
  EXPECT_TRUE(mentions(verify(PrimFunc{"k", {x}, store(t, intImm(0), floatImm(0.0))}),
                       "neither a parameter nor allocated"));
  EXPECT_TRUE(mentions(verify(PrimFunc{"k", {x}, store(x, intImm(8), floatImm(0.0))}),
                       "reaches elements 8..8 of 8"));
  Stmt wide = store(x, ramp(intImm(4), intImm(1), 8), load(x, ramp(intImm(0), intImm(1), 8)));
  EXPECT_TRUE(mentions(verify(PrimFunc{"k", {x}, wide}), "reaches elements 4..11 of 8"));
  Stmt twice = allocate(t, allocate(t, store(t, intImm(0), floatImm(0.0))));
  EXPECT_TRUE(mentions(verify(PrimFunc{"k", {x}, twice}), "reuses the name"));
  EXPECT_THROW(verifyOrThrow(PrimFunc{"k", {x}, twice}), InternalError);
}

TEST(TirVerifier, FindsNegativeExtents) {
  Buffer x = makeBuffer("x", DataType::float32(), {8});
  Expr i = var("i");
  Stmt s = forLoop(i, intImm(0), intImm(-1), ForKind::kSerial, store(x, i, floatImm(0.0)));
  EXPECT_TRUE(mentions(verify(PrimFunc{"k", {x}, s}), "negative extent"));
}

}  // namespace
}  // namespace kiln::tir
