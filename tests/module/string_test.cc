// String tensors compiled and run: Cast between strings and numbers, StringNormalizer and
// Identity, in models of the text IR given string inputs through set_input, checked against
// values worked out by hand here; and the ops and places that take no strings, refusing them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kiln/ir/parser.h"
#include "kiln/runtime/module.h"
#include "kiln/support/error.h"
#include "model_builder.h"

namespace kiln::test {
namespace {

using runtime::DataType;
using runtime::Module;
using runtime::NDArray;

NDArray strings(const std::vector<std::string>& v, const runtime::Shape& shape) {
  NDArray a = NDArray::empty(shape, DataType::string());
  std::copy(v.begin(), v.end(), a.data<std::string>());
  return a;
}

std::vector<std::string> stringsOf(const NDArray& a) {
  EXPECT_TRUE(a.dtype().isString()) << a.dtype().str();
  return {a.data<std::string>(), a.data<std::string>() + a.numel()};
}

// Floats printed as NumPy prints them and read back; integers and bools printed.
const char* kPrint = R"(graph print(%x: float32[7], %i: int64[3], %b: bool[2]) opset 13 {
  %s = Cast(%x) {to=8}
  %back = Cast(%s) {to=1}
  %si = Cast(%i) {to=8}
  %sb = Cast(%b) {to=8}
  return %s, %back, %si, %sb
}
)";

// Text read as float64 and int32; the CastLike form takes its type from `like`.
// The input is an output too (copied as strings).
const char* kParse =
    R"(graph parse(%s: string[5], %like: int32[1]) opset 15 {
  %d = Cast(%s) {to=11}
  %n = CastLike(%s, %like)
  return %d, %n, %s
}
)";

const char* kNormalize = R"(graph normalize(%x: string[?], %y: string[1,6]) opset 10 {
  %u = StringNormalizer(%x) {case_change_action="UPPER", stopwords=["monday"]}
  %l = StringNormalizer(%y) {case_change_action="LOWER", is_case_sensitive=1, stopwords=["Monday"]}
  %same = Identity(%u)
  return %same, %l
}
)";

TEST(Strings, NumbersPrintShortestAndReadBackExactly) {
  Module ex = executorOfText(kPrint, "print");
  float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {0.039187793f, 1.0f, -2.5e-7f, 123456792.0f, std::nanf(""), inf, -inf};
  ex["set_input"]("x", toArray(x, {7}));
  NDArray i = NDArray::empty({3}, DataType::int64());
  int64_t ints[] = {0, -42, std::numeric_limits<int64_t>::max()};
  std::copy(ints, ints + 3, i.data<int64_t>());
  ex["set_input"]("i", i);
  NDArray b = NDArray::empty({2}, DataType::boolean());
  b.data<bool>()[0] = true;
  b.data<bool>()[1] = false;
  ex["set_input"]("b", b);
  ex["run"]();
  EXPECT_EQ(stringsOf(ex["get_output"](0).asNDArray()),
            (std::vector<std::string>{"0.039187793", "1.0", "-2.5e-07", "123456792.0", "NaN", "INF",
                                      "-INF"}));
  std::vector<float> back = toVector(ex["get_output"](1).asNDArray());
  for (size_t k = 0; k < x.size(); ++k) {
    if (std::isnan(x[k])) {
      EXPECT_TRUE(std::isnan(back[k]));
    } else {
      EXPECT_EQ(back[k], x[k]) << k;
    }
  }
  EXPECT_EQ(stringsOf(ex["get_output"](2).asNDArray()),
            (std::vector<std::string>{"0", "-42", "9223372036854775807"}));
  EXPECT_EQ(stringsOf(ex["get_output"](3).asNDArray()),
            (std::vector<std::string>{"True", "False"}));
}

TEST(Strings, TextIsReadInEveryNotationAndABadElementIsNamed) {
  Module ex = executorOfText(kParse, "parse");
  ex["set_input"]("s", strings({" 42 ", "+1e3", "-inf", "2.75", "NaN"}, {5}));
  ex["set_input"]("like", NDArray::empty({1}, DataType::int32()));
  std::string err = errorOf([&] { ex["run"](); });
  // -inf and NaN have no int32 value.
  EXPECT_NE(err.find("element 2 is '-inf', which is outside the range of int32"), std::string::npos)
      << err;
  ex["set_input"]("s", strings({" 42 ", "+1e3", "-7", "2.75", "1E-2"}, {5}));
  ex["run"]();
  NDArray d = ex["get_output"](0).asNDArray();
  ASSERT_EQ(d.dtype(), DataType::float64());
  std::vector<double> want = {42, 1000, -7, 2.75, 0.01};
  for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(d.data<double>()[k], want[k]) << k;
  NDArray n = ex["get_output"](1).asNDArray();
  ASSERT_EQ(n.dtype(), DataType::int32());
  std::vector<int32_t> wantInts = {42, 1000, -7, 2, 0};
  for (size_t k = 0; k < wantInts.size(); ++k) EXPECT_EQ(n.data<int32_t>()[k], wantInts[k]) << k;

  EXPECT_EQ(stringsOf(ex["get_output"](2).asNDArray()),
            (std::vector<std::string>{" 42 ", "+1e3", "-7", "2.75", "1E-2"}));

  ex["set_input"]("s", strings({"1", "2", "three", "4", "5"}, {5}));
  err = errorOf([&] { ex["run"](); });
  EXPECT_NE(err.find("element 2 is 'three', which is not a number"), std::string::npos) << err;
}

const char* kRange = R"(graph range(%s: string[3]) opset 13 {
  %f = Cast(%s) {to=1}
  return %f
}
)";

const char* kRangeInt = R"(graph range_int(%s: string[2]) opset 13 {
  %l = Cast(%s) {to=7}
  return %l
}
)";

// Beyond a type's range: infinite (or zero) for floats, as rounding gives; an error for integers.
TEST(Strings, NumbersBeyondATypesRange) {
  Module f = executorOfText(kRange, "range");
  f["set_input"]("s", strings({"1e39", "-1e400", "1e-400"}, {3}));
  f["run"]();
  std::vector<float> got = toVector(f["get_output"](0).asNDArray());
  EXPECT_EQ(got[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(got[1], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(got[2], 0.0f);
  Module l = executorOfText(kRangeInt, "range_int");
  l["set_input"]("s", strings({"9223372036854775807", "-9223372036854775808"}, {2}));
  l["run"]();
  NDArray ints = l["get_output"](0).asNDArray();
  EXPECT_EQ(ints.data<int64_t>()[0], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ints.data<int64_t>()[1], std::numeric_limits<int64_t>::min());
  for (const char* beyond : {"9223372036854775808", "9.3e18"}) {
    l["set_input"]("s", strings({"0", beyond}, {2}));
    std::string err = errorOf([&] { l["run"](); });
    EXPECT_NE(
        err.find(std::string("element 1 is '") + beyond + "', which is outside the range of int64"),
        std::string::npos)
        << err;
  }
}

TEST(Strings, StopwordsGoAndCaseChangesWithUnicode) {
  Module ex = executorOfText(kNormalize, "normalize");
  ex["set_input"]("x", strings({"Monday", "straße", "ärger", "MONDAY", "tuesday"}, {5}));
  ex["set_input"]("y", strings({"Monday", "Tuesday", "monday", "ÉTÉ", "Monday", "x"}, {1, 6}));
  ex["run"]();
  NDArray u = ex["get_output"](0).asNDArray();
  EXPECT_EQ(u.shape(), (runtime::Shape{3}));
  // Case-insensitive stopwords; towupper maps code points one to one, so ß stays.
  EXPECT_EQ(stringsOf(u), (std::vector<std::string>{"STRAßE", "ÄRGER", "TUESDAY"}));
  NDArray l = ex["get_output"](1).asNDArray();
  EXPECT_EQ(l.shape(), (runtime::Shape{1, 4}));
  EXPECT_EQ(stringsOf(l), (std::vector<std::string>{"tuesday", "monday", "été", "x"}));

  // Every word a stopword: one empty string, the rank kept.
  ex["set_input"]("x", strings({"monday", "MONDAY"}, {2}));
  ex["set_input"]("y",
                  strings({"Monday", "Monday", "Monday", "Monday", "Monday", "Monday"}, {1, 6}));
  ex["run"]();
  EXPECT_EQ(stringsOf(ex["get_output"](0).asNDArray()), (std::vector<std::string>{""}));
  NDArray empty = ex["get_output"](1).asNDArray();
  EXPECT_EQ(empty.shape(), (runtime::Shape{1, 1}));
  EXPECT_EQ(stringsOf(empty), (std::vector<std::string>{""}));
}

TEST(Strings, AStringInputIsCheckedAgainstItsType) {
  Module ex = executorOfText(kNormalize, "normalize_checked");
  std::string err = errorOf([&] { ex["set_input"]("x", toArray({1, 2}, {2})); });
  EXPECT_NE(err.find("set_input('x'): expected string[?], got float32[2]"), std::string::npos)
      << err;
  err = errorOf([&] { ex["set_input"]("y", strings({"a"}, {1, 1})); });
  EXPECT_NE(err.find("expected string[1,6], got string[1,1]"), std::string::npos) << err;
}

TEST(Strings, OpsThatTakeNoStringsRefuseThem) {
  std::string err = errorOf([] {
    ir::parseGraph(R"(graph bad(%s: string[2]) opset 13 {
  %y = Relu(%s)
  return %y
})");
  });
  EXPECT_NE(err.find("is string[2]; kiln's 'Relu' takes no strings (ops that take strings: "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("StringNormalizer"), std::string::npos) << err;
  err = errorOf([] {
    ir::parseGraph(R"(graph bad(%s: string[2]) opset 13 {
  %y = Cast(%s) {to=10}
  return %y
})");
  });
  EXPECT_NE(err.find("casts string to float16"), std::string::npos) << err;
  err = errorOf([] {
    ir::parseGraph(R"(graph bad(%m: int64[], %x: float32[2]) opset 16 {
  %out = Loop[loop](%m, _, %x) {body=graph b(%i: int64[], %c: bool[], %x: float32[2]) opset 16 {
      %cc = Identity(%c)
      %s = Cast(%x) {to=8}
      return %cc, %s
    }, kiln.captured=1}
  return %out
})");
  });
  EXPECT_NE(err.find("scan output 0 of its body is string[2]; kiln stacks numeric tensors only"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace kiln::test
