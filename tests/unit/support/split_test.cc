// splitOn keeps every piece, empty ones included, so callers decide what an empty piece means.
#include "kiln/support/split.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using Parts = std::vector<std::string>;

TEST(Split, KeepsEmptyPieces) {
  EXPECT_EQ(splitOn("a:b::c:", ':'), (Parts{"a", "b", "", "c", ""}));
  EXPECT_EQ(splitOn("", ':'), (Parts{""}));
  EXPECT_EQ(splitOn("/x/y", '/'), (Parts{"", "x", "y"}));
  EXPECT_EQ(splitOn("no separator", ','), (Parts{"no separator"}));
}

}  // namespace
}  // namespace kiln
