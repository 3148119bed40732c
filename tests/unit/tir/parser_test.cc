// Checks that the text form round-trips (print, parse, print again gives the same text) and that
// malformed text is rejected with a position and what was expected.
#include "kiln/tir/parser.h"

#include <gtest/gtest.h>

#include "kiln/support/error.h"
#include "kiln/tir/printer.h"
#include "kiln/tir/verifier.h"

namespace kiln::tir {
namespace {

// A kernel using every construct: loops of each kind, lets, local buffers (scoped and not), an
// if/else, a data check, vectors, casts, typed and special immediates, every operator family.
PrimFunc everything() {
  Buffer x = makeBuffer("x", DataType::float32(), {4, 16});
  Buffer n = makeBuffer("n", DataType::int32(), {4});
  Buffer y = makeBuffer("y", DataType::float32(), {4, 16});
  Buffer acc = makeBuffer("acc", DataType::float32(), {16});
  Buffer tmp = makeBuffer("tmp", DataType::float64(), {1});
  Expr task = var("task"), j = var("j"), k = var("k"), row = var("row");
  Expr vec = var("v", DataType::parse("float32x16"));
  Expr lanes = ramp(row * intImm(16), intImm(1), 16);
  Stmt init = forLoop(
      j, intImm(0), intImm(16), ForKind::kVectorized,
      store(acc, j,
            select(compare(CompareOp::kGE, j, intImm(-3)), floatImm(0.5), floatImm(-1e-3))));
  Stmt scoped = allocate(tmp, store(tmp, intImm(0), cast(DataType::float64(), load(n, row))));
  Stmt vectorWork = let(vec,
                        fma(load(x, lanes), load(acc, ramp(intImm(0), intImm(1), 16)),
                            broadcast(floatImm(std::numeric_limits<double>::infinity()), 16)),
                        store(y, lanes, max(vec, floatImm(0.0))));
  Stmt branch = ifThenElse(
      compare(CompareOp::kNE, load(n, row), intImm(7, DataType::int32())) &&
          compare(CompareOp::kLT, binary(BinaryOp::kFloorMod, task, intImm(3)), intImm(2)),
      seq({assertThat(compare(CompareOp::kLT, load(n, row), intImm(100, DataType::int32())), 2),
           store(y, row * intImm(16), call(Intrinsic::kReduceAdd, {load(x, lanes)}))}),
      forLoop(k, intImm(0), intImm(2), ForKind::kUnrolled,
              store(y, row * intImm(16) + k,
                    call(Intrinsic::kExp, {load(x, binary(BinaryOp::kFloorDiv, k, intImm(2)))}))));
  Stmt body = forLoop(
      task, intImm(0), intImm(4), ForKind::kParallel,
      let(row, min(task, intImm(3)), allocate(acc, seq({init, scoped, vectorWork, branch}))));
  return PrimFunc{"everything", {x, n, y}, body};
}

TEST(TirParser, RoundTripsEveryConstruct) {
  PrimFunc f = everything();
  ASSERT_TRUE(verify(f).empty());
  std::string text = printPrimFunc(f);
  PrimFunc back = parsePrimFunc(text);
  EXPECT_EQ(printPrimFunc(back), text);
  EXPECT_TRUE(verify(back).empty()) << printPrimFunc(back);
  EXPECT_EQ(back.params.size(), 3u);
  EXPECT_EQ(back.params[1]->dtype, DataType::int32());
  EXPECT_EQ(back.params[2]->shape, (std::vector<int64_t>{4, 16}));
}

TEST(TirParser, ReadsSeveralKernelsAndComments) {
  std::string text = R"(// two kernels
kernel a(float32* x[2]) {
  x[0] = 1.0f;  // a store
}
kernel b(int64* y[1]) {
  y[0] = -9223372036854775807;
}
)";
  std::vector<PrimFunc> all = parsePrimFuncs(text);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].name, "b");
  EXPECT_EQ(all[1].body->value->intValue, -9223372036854775807);
  EXPECT_THROW(parsePrimFunc(text), Error);
}

TEST(TirParser, ErrorsNameThePositionAndWhatWasExpected) {
  auto message = [](const std::string& text) {
    try {
      parsePrimFunc(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("kernel k(float32* x[2]) { y[0] = 1.0f; }").find("line 1, column 27"),
            std::string::npos);
  EXPECT_NE(message("kernel k(float32* x[2]) { y[0] = 1.0f; }").find("a buffer in scope"),
            std::string::npos);
  EXPECT_NE(message("kernel k(float32* x[2]) {\n  x[i] = 1.0f;\n}").find("variable in scope"),
            std::string::npos);
  EXPECT_NE(message("kernel k(float33* x[2]) {}").find("a data type"), std::string::npos);
  EXPECT_NE(message("kernel k(float32* x[2]) { x[0] = 1.0f }").find("expected ';'"),
            std::string::npos);
  EXPECT_NE(message("kernel k(float32* x[2]) { x[0] = $; }").find("unexpected '$'"),
            std::string::npos);
  EXPECT_NE(message("kernel k(float32* x[2]) { x[0] = frob(1.0f); }").find("unknown function"),
            std::string::npos);
  // Type errors found by the checking constructors are the text's fault: kiln::Error, positioned.
  EXPECT_NE(message("kernel k(float32* x[2]) { x[0] = (1 + 1.0f); }").find("line 1, column 34"),
            std::string::npos);
}

// Each of these once escaped as an InternalError (a crash to the fuzzer) from a constructor's type
// check; tir_text_fuzzer found the first.
TEST(TirParser, TextBreakingATypeRuleIsAnErrorNamingTheRule) {
  for (const auto& [text, rule] : {
           std::pair{"kernel k(int64* x[4]) {\n  x[0] = (x[1] || x[2]);\n}", "non-bool"},
           std::pair{"kernel k(float32* x[-1]) {}", "negative dimension"},
           std::pair{"kernel k(float32x4* x[2]) {}", "vector element type"},
           std::pair{"kernel k(float32* x[2]) { x[0] = 1; }", "store of int64"},
           std::pair{"kernel k(float32* x[2]) { for (i, 0.5, 2) { x[i] = 1.0f; } }", "int64"},
           std::pair{"kernel k(float32* x[2]) { if (1) { x[0] = 1.0f; } }", "bool"},
           std::pair{"kernel k(float32* x[2]) { const int32 c = 1; x[0] = 1.0f; }", "let c"},
           std::pair{"kernel k(float32* x[2]) { x[0] = floordiv(1.0f, 2.0f); }", "floor"},
           std::pair{"kernel k(float32* x[2]) { x[0] = select(1, 1.0f, 2.0f); }", "select"},
           std::pair{"kernel k(float32* x[2]) { x[0] = x[1.0f]; }", "index"},
           std::pair{"kernel k(float32* x[2]) { x[0] = exp(1.0f, 2.0f); }", "arguments"},
           std::pair{"kernel k(float32* x[2]) { x[0] = ((float32x4)1.0f + 1.0f); }",
                     "store of float32x4"},
           std::pair{"kernel k(int64* x[2]) { assert(x[0], 2); }", "bool scalar"},
           std::pair{"kernel k(int64* x[2]) { assert((x[0] < 2), 0); }", "non-zero status"},
       }) {
    try {
      parsePrimFunc(text);
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      std::string message = e.what();
      EXPECT_NE(message.find("loop IR text, line "), std::string::npos) << message;
      EXPECT_NE(message.find(rule), std::string::npos) << message;
      EXPECT_EQ(message.find("internal error"), std::string::npos) << message;
    }
  }
}

TEST(TirParser, LaneCountsOutsideTheVectorRangeAreErrors) {
  for (const char* lanes : {"0", "65536", "4294967297"}) {
    std::string text = std::string("kernel k(float32* x[2]) { x[0] = reduce_add(broadcast(1.0f, ") +
                       lanes + ")); }";
    EXPECT_THROW(parsePrimFunc(text), Error) << text;
  }
}

TEST(TirParser, NestingBeyondTheLimitIsAnErrorNotAStackOverflow) {
  std::string deepExpr = "kernel k(int64* x[1]) { x[0] = ";
  for (int i = 0; i < 100000; ++i) deepExpr += "(";
  std::string deepBlocks = "kernel k(int64* x[1]) ";
  for (int i = 0; i < 100000; ++i) deepBlocks += "{";
  for (const std::string& text : {deepExpr, deepBlocks}) {
    try {
      parsePrimFunc(text);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("levels of nesting"), std::string::npos) << e.what();
    }
  }
}

TEST(TirParser, LoopScopesEndWithTheirBlock) {
  std::string text = R"(kernel k(int64* x[4]) {
  for (i, 0, 4) {
    x[i] = i;
  }
  x[0] = i;
})";
  EXPECT_THROW(parsePrimFunc(text), Error);
}

}  // namespace
}  // namespace kiln::tir
