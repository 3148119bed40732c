// The text form round-trips exactly: canonical text reprints identically, constants keep their
// bits, and the parser reports errors at their line and column.
#include <cmath>
#include <cstring>
#include <random>

#include "ir_test_util.h"
#include "kiln/ir/parser.h"
#include "kiln/ir/printer.h"
#include "kiln/ir/random_tensor.h"

namespace kiln::ir {
namespace {

using testing::f32;

std::string roundTrip(const std::string& text) { return printGraph(*parseGraph(text)); }

TEST(PrinterParserTest, CanonicalTextReprintsIdentically) {
  const char* const kTexts[] = {
      R"(graph main(%input: float32[1,3,8,8]) {
  %w = const float32[2,3,1,1] [0.5, -0.25, 1.0, 2.0, 3.0, 1e-07]
  %b = const float32[2] [0.1, 0.2]
  %conv = Conv(%input, %w, %b) {pads=[0,0,0,0], strides=[1,1]} : float32[1,2,8,8]
  %r = Relu(%conv) : float32[1,2,8,8] #group=0
  return %r
}
)",
      R"(graph "torch-jit-export"(%input.1: float32[2,3], %"onnx::Gemm_7": float32[3,4]) opset 11 {
  %six = const float32[] [6.0]
  %"/fc/Gemm_output_0" = Gemm["/fc/Gemm"](%input.1, %"onnx::Gemm_7") {alpha=1.5, transB=0} : float32[2,4]
  %clip = Clip(%"/fc/Gemm_output_0", _, %six) : float32[2,4] #group=3
  %d, %mask = Dropout(%clip) : float32[2,4], bool[2,4]
  return %d, %mask, %six
}
)",
      R"(graph attrs(%x: int64[3]) {
  %i = const int32[2] [-2147483648, 2147483647]
  %u = const uint8[3] [0, 128, 255]
  %flags = const bool[2] [true, false]
  %h = const float16[3] [1.0, -0.0009994507, 65504.0]
  %dd = const float64[3] [0.1, inf, -inf]
  %y = Identity(%x) {e="", fs=floats[], ints=[], note="tab\tquote\"nl\n\x01", ss=["a", "b c"], t=tensor int64[2] [1, -2], vals=[0.5, -1e+300]} : int64[3]
  %s = Shape[shape_of_x](%y) {end=1} : int64[1]
  return %s, %i, %u, %flags, %h, %dd
}
)",
      R"(graph empty() {
  %c = const int64[0] []
  return %c
}
)",
      R"(graph run_time(%x: float32[2,6], %shape: int64[3]) {
  %r = Reshape(%x, %shape) : float32[?,?,?]
  %n = NonZero(%x) : int64[2,?]
  %s = Shape(%n) : int64[2]
  return %r, %s
}
)",
  };
  for (const char* text : kTexts) EXPECT_EQ(roundTrip(text), text);
}

TEST(PrinterParserTest, NodeNamesShownOnlyWhenTheyDiffer) {
  std::unique_ptr<Graph> g = parseGraph(R"(
graph g(%x: float32[2]) {
  %a = Relu(%x)
  %b = Relu[my_relu](%a)
  return %b
})");
  ASSERT_EQ(g->nodes().size(), 2u);
  EXPECT_EQ(g->nodes()[0]->name, "a");
  EXPECT_EQ(g->nodes()[1]->name, "my_relu");
  std::string text = printGraph(*g);
  EXPECT_NE(text.find("%a = Relu(%x)"), std::string::npos) << text;
  EXPECT_NE(text.find("%b = Relu[my_relu](%a)"), std::string::npos) << text;
}

TEST(PrinterParserTest, ParsedStructure) {
  std::unique_ptr<Graph> g = parseGraph(R"(
graph g(%x: float32[1,2]) opset 12 {  // comment
  %k = const int64[2] [2, 1]
  %y = Reshape(%x, %k)
  %z = Clip(%y, _, _) #group=4
  return %z
})");
  EXPECT_EQ(g->name, "g");
  EXPECT_EQ(g->opsetVersion, 12);
  ASSERT_EQ(g->nodes().size(), 2u);
  const Node* clip = g->nodes()[1];
  EXPECT_EQ(clip->group, 4);
  ASSERT_EQ(clip->inputs.size(), 3u);
  EXPECT_EQ(clip->inputs[1], nullptr);
  EXPECT_EQ(clip->outputs[0]->type, f32({2, 1}));  // inferred: no `: type` was written
  EXPECT_EQ(g->outputs()[0], clip->outputs[0]);
}

template <typename T>
void expectSameBits(const NDArray& a, const NDArray& b) {
  ASSERT_EQ(a.numel(), b.numel());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.nbytes()), 0) << a.dtype().str();
}

// Constants of every float type with random bit patterns (and specials) print and parse back to
// identical bytes.
TEST(PrinterParserTest, FloatConstantsRoundTripBitExactly) {
  std::mt19937_64 rng(1234);
  for (int iter = 0; iter < 50; ++iter) {
    Graph g;
    NDArray f = NDArray::empty({64}, DataType::float32());
    NDArray d = NDArray::empty({64}, DataType::float64());
    NDArray h = NDArray::empty({64}, DataType::float16());
    NDArray bf = NDArray::empty({64}, {kDLBfloat, 16, 1});
    for (int64_t i = 0; i < 64; ++i) {
      uint64_t bits = rng();
      auto b32 = static_cast<uint32_t>(bits);
      auto b16 = static_cast<uint16_t>(bits >> 40);
      if ((b32 & 0x7f800000u) == 0x7f800000u) b32 &= 0xbfffffffu;  // no NaN/inf patterns
      if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) bits &= 0xbfffffffffffffffull;
      if ((b16 & 0x7c00) == 0x7c00) b16 &= 0xbfff;
      std::memcpy(f.data<uint32_t>() + i, &b32, 4);
      std::memcpy(d.data<uint64_t>() + i, &bits, 8);
      h.data<uint16_t>()[i] = b16;
      bf.data<uint16_t>()[i] = static_cast<uint16_t>(b32 >> 16);
    }
    f.data<float>()[0] = -0.0f;
    f.data<float>()[1] = std::numeric_limits<float>::denorm_min();
    f.data<float>()[2] = std::numeric_limits<float>::max();
    f.data<float>()[3] = std::numeric_limits<float>::infinity();
    d.data<double>()[0] = std::numeric_limits<double>::denorm_min();
    g.addConstant("f", f);
    g.addConstant("d", d);
    g.addConstant("h", h);
    g.addConstant("bf", bf);
    std::string text = printGraph(g);
    std::unique_ptr<Graph> back = parseGraph(text);
    for (const char* name : {"f", "d", "h", "bf"}) {
      expectSameBits<uint8_t>(*g.findValue(name)->constant, *back->findValue(name)->constant);
    }
    EXPECT_EQ(printGraph(*back), text);
  }
}

TEST(PrinterParserTest, NanReadsBackAsNan) {
  std::unique_ptr<Graph> g =
      parseGraph("graph g() {\n  %n = const float32[2] [nan, -nan]\n  return %n\n}\n");
  const NDArray& n = *g->findValue("n")->constant;
  EXPECT_TRUE(std::isnan(n.data<float>()[0]));
  EXPECT_TRUE(std::isnan(n.data<float>()[1]));
}

TEST(PrinterParserTest, LargeConstantsAreElidedWithCrc32) {
  Graph g;
  NDArray bytes = NDArray::empty({72}, DataType::uint8());
  for (int i = 0; i < 72; ++i) bytes.data<uint8_t>()[i] = static_cast<uint8_t>(i);
  g.addConstant("bytes", bytes);
  NDArray floats = NDArray::empty({65}, DataType::float32());
  for (int i = 0; i < 65; ++i) floats.data<float>()[i] = static_cast<float>(i);
  g.addConstant("floats", floats);
  std::string text = printGraph(g);
  // Expected values from zlib.crc32 over the same bytes.
  EXPECT_NE(text.find("%bytes = const uint8[72] elided(crc=0x1de0d4f7)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("%floats = const float32[65] elided(crc=0x6a5fc95a)"), std::string::npos)
      << text;
}

TEST(PrinterParserTest, RandomConstantsAreDeterministic) {
  const char* text = R"(graph g() {
  %a = const float32[1000] random(seed=7)
  %b = const float32[1000] random(seed=7)
  %c = const float32[1000] random(seed=8)
  %d = const float32[100] random(seed=1, low=0.5, high=2.0)
  %e = const int64[100] random(seed=2)
  return %a, %b, %c, %d, %e
})";
  std::unique_ptr<Graph> g = parseGraph(text);
  std::unique_ptr<Graph> again = parseGraph(text);
  auto data = [](const Graph& graph, const char* name) {
    return testing::values<float>(*graph.findValue(name)->constant);
  };
  EXPECT_EQ(data(*g, "a"), data(*g, "b"));
  EXPECT_EQ(data(*g, "a"), data(*again, "a"));
  EXPECT_NE(data(*g, "a"), data(*g, "c"));
  float lo = 1, hi = -1;
  for (float v : data(*g, "a")) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GE(lo, -1.0f);
  EXPECT_LT(hi, 1.0f);
  EXPECT_LT(lo, -0.9f);  // spread over the range
  EXPECT_GT(hi, 0.9f);
  for (float v : data(*g, "d")) {
    EXPECT_GE(v, 0.5f);
    EXPECT_LT(v, 2.0f);
  }
  for (int64_t v : testing::values<int64_t>(*g->findValue("e")->constant)) {
    EXPECT_GE(v, -8);
    EXPECT_LT(v, 8);
  }
  NDArray direct = randomTensor(f32({1000}), 7);
  EXPECT_EQ(testing::values<float>(direct), data(*g, "a"));
}

struct ErrorCase {
  const char* text;
  const char* position;  // "line L:C:"
  const char* message;   // a substring
};

TEST(ParserErrorTest, ReportsLineColumnAndExpectation) {
  const ErrorCase kCases[] = {
      {"graph g(%x: float32[2]) {\n  %y = Relu(%nope)\n  return %y\n}",
       "line 2:13:", "value %nope is not defined"},
      {"graph g(%x: float32[2]) {\n  %x = Relu(%x)\n  return %x\n}",
       "line 2:3:", "value %x is already defined"},
      {"graph g(%x: float32[2]) {\n  %y = Foo(%x)\n  return %y\n}",
       "line 2:8:", "'Foo' is not a known op"},
      {"graph g(%x: float32[2]) {\n  %y = Relu(%x) : float32[3]\n  return %y\n}",
       "line 2:19:", "declared type float32[3] of %y does not match the inferred type float32[2]"},
      {"graph g() {\n  %w = const float32[100] elided(crc=0x12345678)\n  return %w\n}",
       "line 2:27:", "constant data is elided"},
      {"graph g() {\n  %w = const float32[3] [1.0, 2.0]\n  return %w\n}",
       "line 2:25:", "constant data has 2 values; expected 3 for float32[3]"},
      {"graph g() {\n  %w = const float32[1] [1.0, 2.0]\n  return %w\n}",
       "line 2:31:", "too many values"},
      {"graph g() {\n  %w = const int8[1] [200]\n  return %w\n}",
       "line 2:23:", "value 200 does not fit in int8"},
      {"graph g() {\n  %w = const float33[1] [1.0]\n  return %w\n}",
       "line 2:14:", "unknown data type 'float33'"},
      {"graph g(%x: float32[-1]) {\n  return %x\n}", "line 1:21:", "dimension -1 is negative"},
      {"graph g(%x: float32[2]) {\n}", "line 2:1:", "expected a statement or 'return', found '}'"},
      {"graph g(%x: float32[2]) {\n  return %x\n} extra",
       "line 3:3:", "expected the end of the text after the graph, found 'extra'"},
      {"graph g(%x: float32[2]) {\n  %y = Relu(%x) {a=\"open\n  return %y\n}",
       "line 2:20:", "unterminated string"},
      {"graph g(%x: float32[2]) {\n  %y = Relu(%x %x)\n  return %y\n}",
       "line 2:16:", "expected ')' after the node's inputs, found '%'"},
      {"graph g(%x: float32[1,3,8,8], %w: float32[4,4,3,3]) {\n  %y = Conv[c1](%x, %w)\n  return "
       "%y\n}",
       "line 2:8:", "Conv 'c1': input channels 3 do not match weight channels 4 * group 1"},
      {"graph g(%x: float32[2]) {\n  %y = Relu(%x) {k=1, k=2}\n  return %y\n}",
       "line 2:23:", "attribute 'k' is given twice"},
      {"graph g(%x: float32[2]) {\n  %y = Relu(%x) {k=[1, \"a\"]}\n  return %y\n}",
       "line 2:24:", "cannot mix strings and numbers"},
      {"graph g() {\n  %w = const float32[1] random(seed=1, low=2.0)\n  return %w\n}",
       "line 2:47:", "needs both low and high"},
      {"", "line 1:1:", "expected 'graph' at the start of the text"},
  };
  for (const ErrorCase& c : kCases) {
    try {
      parseGraph(c.text);
      ADD_FAILURE() << "no error for:\n" << c.text;
    } catch (const Error& e) {
      std::string msg = e.what();
      EXPECT_EQ(msg.rfind(c.position, 0), 0u) << msg << "\nfor:\n" << c.text;
      EXPECT_NE(msg.find(c.message), std::string::npos) << msg << "\nfor:\n" << c.text;
    }
  }
}

// A constant's shape comes from the text; its storage must not be allocated before the text is
// known to hold that many values (ir_text_fuzzer found a 6 GB allocation for one value).
TEST(ParserErrorTest, HugeConstantShapesAreRefusedBeforeAllocating) {
  for (const auto& [text, message] : {
           std::pair{"graph g() {\n  %w = const float32[1,1,1555555555,1] [2.0]\n  return %w\n}",
                     "needs 1555555555 values, more than the text has characters left"},
           std::pair{"graph g() {\n  %w = const float32[1000000000000] [2.0]\n  return %w\n}",
                     "more than the text has characters left"},
           std::pair{"graph g() {\n  %w = const float32[1000000,1000000] random(seed=1)\n"
                     "  return %w\n}",
                     "has more than 67108864 elements"},
       }) {
    try {
      parseGraph(text);
      ADD_FAILURE() << "no error for:\n" << text;
    } catch (const Error& e) {
      std::string msg = e.what();
      EXPECT_EQ(msg.rfind("line 2:", 0), 0u) << msg;
      EXPECT_NE(msg.find(message), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace kiln::ir

namespace kiln::ir {
namespace {

// Random edits of valid text either parse or fail with kiln::Error: never another exception,
// never a crash (run under the asan preset to catch memory errors too).
TEST(ParserErrorTest, RandomMutationsFailCleanly) {
  const std::string base = R"(graph g(%x: float32[1,2,6,6], %w: float32[4,2,3,3]) {
  %b = const float32[4] [0.1, -0.2, 3e-05, 4.0]
  %k = const int64[2] [1, -1]
  %c = Conv[c](%x, %w, %b) {dilations=[1,1], pads=[1,1,1,1], strides=[2,2]} : float32[1,4,3,3]
  %r = Reshape(%c, %k) : float32[1,36] #group=2
  %s = Slice(%r, %k, %k) {note="x\ty", fs=[0.5, 1.5]}
  return %s
}
)";
  const std::string alphabet = "%[](){}=,:#_\"\\/.-+0123456789eaxnf \n";
  std::mt19937 rng(42);
  int parsed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = base;
    int edits = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int e = 0; e < edits; ++e) {
      size_t pos = std::uniform_int_distribution<size_t>(0, text.size() - 1)(rng);
      char c = alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(rng)];
      switch (rng() % 3) {
        case 0:
          text.erase(pos, 1);
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(pos), c);
          break;
        default:
          text[pos] = c;
          break;
      }
    }
    try {
      parseGraph(text);
      ++parsed;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("line ", 0), 0u) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected " << typeid(e).name() << ": " << e.what() << "\nfor:\n" << text;
    }
  }
  EXPECT_GT(parsed, 0);  // some edits are harmless (comments, whitespace, digits)
}

}  // namespace
}  // namespace kiln::ir
