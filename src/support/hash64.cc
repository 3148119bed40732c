// XXH64 (the published algorithm, seed 0): about ten bytes per cycle, so checking a 100 MB
// artifact costs a few milliseconds beside reading it.
#include "kiln/support/hash64.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace kiln {
namespace {

constexpr uint64_t kP1 = 11400714785074694791ULL;
constexpr uint64_t kP2 = 14029467366897019727ULL;
constexpr uint64_t kP3 = 1609587929392839161ULL;
constexpr uint64_t kP4 = 9650029242287828579ULL;
constexpr uint64_t kP5 = 2870177450012600261ULL;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Little-endian reads, whatever the host's byte order.
inline uint64_t read64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
inline uint64_t read32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

inline uint64_t round(uint64_t acc, uint64_t input) { return rotl(acc + input * kP2, 31) * kP1; }
inline uint64_t merge(uint64_t h, uint64_t lane) { return (h ^ round(0, lane)) * kP1 + kP4; }

}  // namespace

uint64_t hash64(const void* data, size_t size) {
  Hasher64 h;
  h.update(data, size);
  return h.digest();
}

Hasher64::Hasher64() : lanes_{kP1 + kP2, kP2, 0, 0 - kP1} {}

void Hasher64::stripe(const unsigned char* p) {
  lanes_[0] = round(lanes_[0], read64(p));
  lanes_[1] = round(lanes_[1], read64(p + 8));
  lanes_[2] = round(lanes_[2], read64(p + 16));
  lanes_[3] = round(lanes_[3], read64(p + 24));
}

void Hasher64::update(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_ += size;
  if (buffered_ > 0) {  // complete the stripe the last piece began
    size_t take = std::min(size, sizeof buffer_ - buffered_);
    std::memcpy(buffer_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    size -= take;
    if (buffered_ < sizeof buffer_) return;
    stripe(buffer_);
    buffered_ = 0;
  }
  for (; size >= 32; p += 32, size -= 32) stripe(p);
  std::memcpy(buffer_, p, size);
  buffered_ = size;
}

uint64_t Hasher64::digest() const {
  uint64_t h;
  if (total_ >= 32) {
    const uint64_t* v = lanes_;
    h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
    h = merge(merge(merge(merge(h, v[0]), v[1]), v[2]), v[3]);
  } else {
    h = kP5;
  }
  h += total_;
  const unsigned char* p = buffer_;
  const unsigned char* end = buffer_ + buffered_;
  for (; end - p >= 8; p += 8) h = rotl(h ^ round(0, read64(p)), 27) * kP1 + kP4;
  if (end - p >= 4) {
    h = rotl(h ^ (read32(p) * kP1), 23) * kP2 + kP3;
    p += 4;
  }
  for (; p < end; ++p) h = rotl(h ^ (*p * kP5), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

}  // namespace kiln
