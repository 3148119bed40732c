// Tests for kiln::Error and KILN_CHECK: user errors and internal errors stay distinguishable.
#include "kiln/support/error.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

TEST(Error, StrCatJoinsMixedValues) { EXPECT_EQ(strCat("a", 1, '-', 2.5, "b"), "a1-2.5b"); }

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
