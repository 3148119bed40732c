// A fast 64-bit checksum (XXH64, seed 0), so artifacts can be checked at every load and users can
// reproduce the value with the standard `xxhsum -H64` tool.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln {

uint64_t hash64(const void* data, size_t size);

}  // namespace kiln
