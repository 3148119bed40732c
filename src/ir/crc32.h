// CRC-32 (IEEE, as zlib computes it) of constant data, so printed elided constants stay comparable.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::ir {

uint32_t crc32(const void* data, size_t size);

}  // namespace kiln::ir
