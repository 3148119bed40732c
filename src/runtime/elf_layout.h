// What an ELF file says about its own layout (headers, segments, sections), read from its bytes
// with every offset checked against the file's size, for files of any architecture.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime {

struct ElfRegion {
  std::string name;  // a section's name, or "segment N" for a program header
  uint32_t index = 0;
  uint64_t offset = 0;
  uint64_t size = 0;    // bytes in the file
  bool loaded = false;  // a PT_LOAD segment, or a section with SHF_ALLOC
};

struct ElfLayout {
  uint16_t machine = 0;
  bool is64 = true;
  std::vector<ElfRegion> segments;
  std::vector<ElfRegion> sections;  // those with bytes in the file (not SHT_NOBITS)
};

// Throws kiln::Error naming ORIGIN when the bytes are not a little-endian ELF file or declare a
// header, segment or section past their end, saying how many bytes it needs and how many there are.
ElfLayout readElfLayout(const void* data, uint64_t size, const std::string& origin);

}  // namespace kiln::runtime
