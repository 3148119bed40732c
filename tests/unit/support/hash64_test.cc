// XXH64 must give the values of the reference tool (`xxhsum -H64`), so users can check an
// artifact's recorded checksum themselves.
#include "kiln/support/hash64.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace kiln {
namespace {

uint64_t hashOf(const std::string& s) { return hash64(s.data(), s.size()); }

TEST(Hash64, MatchesTheReferenceTool) {
  // printf '...' | xxhsum -H64 (xxhash 0.8.1).
  EXPECT_EQ(hashOf(""), 0xef46db3751d8e999ULL);
  EXPECT_EQ(hashOf("kiln"), 0x655284c27d11b7baULL);
  EXPECT_EQ(hashOf("0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"), 0x342586e410b68501ULL);
  EXPECT_EQ(hashOf(std::string(1000, 'a')), 0x56e43b712eda4223ULL);
}

TEST(Hash64, EveryBitMatters) {
  std::string s(4099, 'x');
  uint64_t base = hashOf(s);
  for (size_t i : {size_t(0), size_t(31), size_t(32), size_t(4095), size_t(4098)}) {
    std::string t = s;
    t[i] ^= 1;
    EXPECT_NE(hashOf(t), base) << "flipped byte " << i;
  }
}

// Pieces of every size, cut anywhere (inside a stripe, across several), hash as the whole.
TEST(Hash64, PiecesHashAsTheirConcatenation) {
  std::string s;
  for (int i = 0; i < 1000; ++i) s += static_cast<char>(i * 37 % 251);
  for (size_t piece : {size_t(1), size_t(3), size_t(31), size_t(32), size_t(33), size_t(100)}) {
    Hasher64 h;
    for (size_t at = 0; at < s.size(); at += piece) {
      h.update(s.data() + at, std::min(piece, s.size() - at));
    }
    EXPECT_EQ(h.digest(), hashOf(s)) << "pieces of " << piece;
  }
  Hasher64 h;
  h.update("kiln", 2);
  h.update("ln", 2);
  EXPECT_EQ(h.digest(), 0x655284c27d11b7baULL);
}

}  // namespace
}  // namespace kiln
