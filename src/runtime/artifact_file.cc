// Verifies an artifact's file before dlopen and seals it after linking. The trailer sits after
// everything the ELF headers describe, where the dynamic loader never looks:
//
//   per loaded section:  u32 section index, u32 0, u64 offset, u64 size, u64 XXH64 of its bytes
//   u64 XXH64 of the section table above (version 2 on; version 1 had no such field)
//   u32 section count, u32 trailer version (2)
//   u64 bytes covered (everything before the trailer), u64 XXH64 of them
//   "KILNSUM1"
//
// All integers little-endian. `xxhsum -H64` over the first `covered` bytes gives the file hash.
// The section table names what changed in a corrupt file, so it is checked first: an edited
// table is itself corruption, never a way to misname a section.
#include "kiln/runtime/artifact_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "byte_stream.h"
#include "elf_layout.h"
#include "kiln/support/error.h"
#include "kiln/support/hash64.h"
#include "kiln/support/mapped_file.h"

namespace kiln::runtime {
namespace {

constexpr char kTrailerMagic[8] = {'K', 'I', 'L', 'N', 'S', 'U', 'M', '1'};
constexpr uint32_t kTrailerVersion = 2;
constexpr uint64_t kTailBytes = 4 + 4 + 8 + 8 + sizeof(kTrailerMagic);
// Version 2's hash of the section table, just before the tail.
constexpr uint64_t kTableHashBytes = 8;
constexpr uint64_t kEntryBytes = 4 + 4 + 8 + 8 + 8;

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << std::hex << std::setw(16) << std::setfill('0') << v;
  return os.str();
}

struct SectionSum {
  uint32_t index = 0;
  uint64_t offset = 0, size = 0, hash = 0;
};

// The sections whose bytes the trailer covers, in the layout's order.
std::vector<SectionSum> sectionSums(const unsigned char* data, const ElfLayout& layout) {
  std::vector<SectionSum> sums;
  for (const ElfRegion& s : layout.sections) {
    if (s.loaded) sums.push_back({s.index, s.offset, s.size, hash64(data + s.offset, s.size)});
  }
  return sums;
}

std::string sectionName(const ElfLayout& layout, uint32_t index) {
  for (const ElfRegion& s : layout.sections) {
    if (s.index == index) {
      if (s.name == "kiln_artifact") return "'kiln_artifact' (metadata and weights)";
      if (s.name == ".text") return "'.text' (the kernels' code)";
      return strCat("'", s.name, "'");
    }
  }
  return strCat("section ", index);
}

void checkSums(const unsigned char* data, uint64_t size, const std::string& origin) {
  auto missing = [&](const std::string& why) {
    throw Error(strCat("artifact '", origin, "' has no valid kiln checksum (", why,
                       "): it was changed after kiln compile wrote it (strip, patchelf, a partial "
                       "copy) or was not written by kiln; compile it again, or skip the check "
                       "with --no-verify"));
  };
  if (size < kTailBytes || std::memcmp(data + size - 8, kTrailerMagic, 8) != 0) {
    missing("the file does not end with \"KILNSUM1\"");
  }
  ByteReader tail(data + size - kTailBytes, kTailBytes, strCat("artifact '", origin, "'"));
  uint32_t count = tail.u32("section count");
  uint32_t version = tail.u32("trailer version");
  uint64_t covered = tail.u64("covered bytes");
  uint64_t expected = tail.u64("file checksum");
  if (version != 1 && version != kTrailerVersion) {
    missing(strCat("checksum trailer version ", version, ", this runtime reads 1 and ",
                   kTrailerVersion));
  }
  uint64_t extra = version >= 2 ? kTableHashBytes : 0;
  if (count > size / kEntryBytes || covered > size ||
      covered + kTailBytes + extra + count * kEntryBytes != size) {
    missing(strCat("the trailer describes ", covered, " bytes and ", count,
                   " sections, which does not add up to the file's ", size, " bytes"));
  }
  const unsigned char* table = data + covered;
  if (version >= 2) {
    uint64_t recorded = 0;
    for (int i = 0; i < 8; ++i) {
      recorded |= uint64_t{table[count * kEntryBytes + i]} << (8 * i);
    }
    if (hash64(table, count * kEntryBytes) != recorded) {
      throw Error(strCat("artifact '", origin,
                         "' is corrupt: the section table of its checksum trailer was changed "
                         "after kiln compile wrote it. Copy or compile it again"));
    }
  }
  uint64_t actual = hash64(data, covered);
  if (actual == expected) return;
  ElfLayout layout = readElfLayout(data, covered, origin);
  ByteReader entries(table, count * kEntryBytes, strCat("artifact '", origin, "'"));
  std::string changed;
  for (uint32_t i = 0; i < count; ++i) {
    SectionSum s;
    s.index = entries.u32("section index");
    entries.u32("reserved");
    s.offset = entries.u64("offset");
    s.size = entries.u64("size");
    s.hash = entries.u64("hash");
    bool inside = s.offset <= covered && s.size <= covered - s.offset;
    if (!inside || hash64(data + s.offset, s.size) != s.hash) {
      changed += (changed.empty() ? "" : ", ") + sectionName(layout, s.index);
    }
  }
  throw Error(strCat("artifact '", origin, "' is corrupt: its bytes hash to ", hex(actual),
                     " but kiln compile recorded ", hex(expected),
                     "; changed: ", changed.empty() ? "the ELF headers or unloaded parts" : changed,
                     ". Copy or compile it again"));
}

}  // namespace

void verifyArtifactBytes(const void* data, size_t size, const std::string& origin, bool checksum) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  readElfLayout(bytes, size, origin);
  if (checksum) checkSums(bytes, size, origin);
}

void verifyArtifactFile(const std::string& path, bool checksum) {
  MappedFile file(path);
  verifyArtifactBytes(file.data(), file.size(), path, checksum);
}

void sealArtifactFile(const std::string& path) {
  std::string trailer;
  {
    MappedFile file(path);
    ElfLayout layout = readElfLayout(file.data(), file.size(), path);
    std::vector<SectionSum> sums = sectionSums(file.data(), layout);
    ByteWriter entries;
    for (const SectionSum& s : sums) {
      entries.u32(s.index);
      entries.u32(0);
      entries.u64(s.offset);
      entries.u64(s.size);
      entries.u64(s.hash);
    }
    std::string table = entries.take();
    ByteWriter out;
    out.raw(table.data(), table.size());
    out.u64(hash64(table.data(), table.size()));
    out.u32(static_cast<uint32_t>(sums.size()));
    out.u32(kTrailerVersion);
    out.u64(file.size());
    out.u64(hash64(file.data(), file.size()));
    out.raw(kTrailerMagic, sizeof kTrailerMagic);
    trailer = out.take();
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  bool ok = fd >= 0 && ::write(fd, trailer.data(), trailer.size()) == ssize_t(trailer.size()) &&
            ::fsync(fd) == 0;
  int err = errno;
  if (fd >= 0) ::close(fd);
  if (!ok) throw Error(strCat("cannot write the checksum of '", path, "': ", std::strerror(err)));
}

}  // namespace kiln::runtime
