// Integer helpers of lowering at the ends of int64_t, where a sum formed on the way overflows.
#include "../../../src/kernel/index_math.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace kiln::kernel {
namespace {

// ceilDiv once formed a + b - 1, which overflowed (undefined behaviour, found by UBSan) for a
// tensor of 2305843009213693951 x 4 elements split into 4096-element blocks.
TEST(IndexMath, CeilDivNearTheLargestInt64DoesNotOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(ceilDiv(9223372036854775804, 4096), 2251799813685248);
  EXPECT_EQ(ceilDiv(kMax, 1), kMax);
  EXPECT_EQ(ceilDiv(kMax, kMax), 1);
  EXPECT_EQ(ceilDiv(kMax - 1, kMax), 1);
  EXPECT_EQ(ceilDiv(kMax, 2), kMax / 2 + 1);
  EXPECT_EQ(ceilDiv(0, 7), 0);
  EXPECT_EQ(ceilDiv(14, 7), 2);
  EXPECT_EQ(ceilDiv(15, 7), 3);
  EXPECT_EQ(ceilDiv(-15, 7), -2);
}

}  // namespace
}  // namespace kiln::kernel
