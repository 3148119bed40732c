// A fast 64-bit checksum (XXH64, seed 0), so artifacts can be checked at every load and users can
// reproduce the value with the standard `xxhsum -H64` tool.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln {

uint64_t hash64(const void* data, size_t size);

// The same checksum over bytes given in pieces (a file written as it is hashed): update() with
// each piece in order, then digest() equals hash64 of their concatenation.
class Hasher64 {
 public:
  Hasher64();
  void update(const void* data, size_t size);
  uint64_t digest() const;

 private:
  void stripe(const unsigned char* p);  // one 32-byte stripe into the four lanes
  uint64_t lanes_[4];
  unsigned char buffer_[32] = {};
  size_t buffered_ = 0;
  uint64_t total_ = 0;
};

}  // namespace kiln
