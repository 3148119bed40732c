// Tests for kiln::Error and KILN_CHECK: user errors and internal errors stay distinguishable.
#include "kiln/support/error.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string_view>

namespace kiln {
namespace {

TEST(Error, StrCatJoinsMixedValues) { EXPECT_EQ(strCat("a", 1, '-', 2.5, "b"), "a1-2.5b"); }

// What an ostream writes for the same value, the form strCat promises.
template <typename T>
std::string streamed(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

enum Plain { kPlainThree = 3 };

// strCat appends strings, characters, integers and floating point without a stream; each piece
// must read exactly as an ostream writes it, or messages (and what tests match in them) change.
TEST(Error, StrCatWritesEachPieceAsAnOstreamDoes) {
  EXPECT_EQ(strCat(int8_t{65}), streamed(int8_t{65}));    // a character, as streams print it
  EXPECT_EQ(strCat(uint8_t{66}), streamed(uint8_t{66}));  // likewise
  EXPECT_EQ(strCat(true, false), "10");
  EXPECT_EQ(strCat(std::numeric_limits<int64_t>::min()),
            streamed(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(strCat(std::numeric_limits<uint64_t>::max()),
            streamed(std::numeric_limits<uint64_t>::max()));
  EXPECT_EQ(strCat(static_cast<short>(-7), 7U, 9UL), "-779");
  for (double v :
       {0.0, -0.0, 0.1, 1.0 / 3.0, 2.5, 1e-7, 123456789.0, 1e300, -4.25e-300,
        std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_EQ(strCat(v), streamed(v)) << streamed(v);
    EXPECT_EQ(strCat(static_cast<float>(v)), streamed(static_cast<float>(v))) << streamed(v);
    EXPECT_EQ(strCat(static_cast<long double>(v)), streamed(static_cast<long double>(v)));
  }
  std::filesystem::path p = "/tmp/a b";
  EXPECT_EQ(strCat(p), streamed(p));  // quoted, as a stream writes a path
  EXPECT_EQ(strCat(kPlainThree), "3");
  std::string s = "str";
  std::string_view sv = "view";
  const char* cs = "cs";
  EXPECT_EQ(strCat(s, sv, cs, 'c'), "strviewcsc");
}

TEST(Error, CheckThrowsInternalErrorWithConditionAndMessage) {
  int x = 3;
  try {
    KILN_CHECK(x == 4, "x was ", x);
    FAIL();
  } catch (const InternalError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("x == 4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("x was 3"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(KILN_CHECK(x == 3, "unused"));
}

TEST(Error, UserErrorIsNotAnInternalError) {
  try {
    throw Error("bad input");
  } catch (const InternalError&) {
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "bad input");
  }
}

}  // namespace
}  // namespace kiln
