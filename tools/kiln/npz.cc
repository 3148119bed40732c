// The .npz container: a ZIP archive of .npy entries, read via its central directory.
#include "npz.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>

#include "kiln/support/error.h"
#include "kiln/support/file.h"

namespace kiln::cli {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;

class Reader {
 public:
  Reader(const uint8_t* bytes, size_t size, const std::string& path)
      : b_(bytes), size_(size), path_(path) {}
  uint32_t u32(size_t at) const { return static_cast<uint32_t>(get(at, 4)); }
  uint16_t u16(size_t at) const { return static_cast<uint16_t>(get(at, 2)); }
  std::string str(size_t at, size_t n) const {
    need(at, n);
    return std::string(reinterpret_cast<const char*>(b_ + at), n);
  }
  void need(size_t at, size_t n) const {
    if (at > size_ || n > size_ - at) {
      throw Error(strCat("'", path_, "' is not a valid .npz file: truncated at byte ", at));
    }
  }
  size_t size() const { return size_; }

 private:
  uint64_t get(size_t at, size_t n) const {
    need(at, n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(b_[at + i]) << (8 * i);
    return v;
  }
  const uint8_t* b_;
  size_t size_;
  const std::string& path_;
};

size_t findEndRecord(const Reader& r, const std::string& path) {
  if (r.size() >= 22) {
    for (size_t at = r.size() - 22;; --at) {
      if (r.u32(at) == kEndSig) return at;
      if (at == 0 || r.size() - at > 22 + 65535) break;
    }
  }
  throw Error(strCat("'", path, "' is not a valid .npz file: no ZIP end record found"));
}

std::string inflateEntry(const std::string& packed, size_t size, const std::string& origin) {
  // Deflate expands at most ~1032:1; a larger claimed size is a corrupt (or hostile) header, and
  // must not make us allocate it.
  if (size / 1032 > packed.size() + 1) {
    throw Error(strCat(origin, ": claims ", size, " bytes from ", packed.size(),
                       " compressed bytes, more than deflate can produce; the file is corrupt"));
  }
  // The buffer grows with what zlib really produces, so a size field that lies costs no memory;
  // one byte of room beyond SIZE tells a stream that produces more than it claims.
  std::string out;
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) throw Error(strCat(origin, ": zlib init failed"));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  zs.avail_in = static_cast<uInt>(packed.size());
  int rc = Z_OK;
  while (rc == Z_OK && out.size() <= size) {
    size_t have = out.size();
    size_t room = std::min(size + 1 - have, std::max<size_t>(have, 64 << 10));
    out.resize(have + room);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + have);
    zs.avail_out = static_cast<uInt>(room);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(have + room - zs.avail_out);
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END || out.size() != size) {
    throw Error(strCat(origin, ": corrupt deflate data (zlib status ", rc, ", ", out.size(),
                       " bytes where the header says ", size, ")"));
  }
  return out;
}

// Where each entry's local header and data lie, so no two entries share bytes: overlapping entries
// are how a small ZIP file expands to far more data than deflate's own ratio allows.
using ByteRanges = std::map<size_t, size_t>;  // start -> end

void claimRange(ByteRanges& used, size_t start, size_t end, const std::string& origin) {
  auto next = used.lower_bound(start);
  bool overlapsNext = next != used.end() && next->first < end;
  bool overlapsPrevious = next != used.begin() && std::prev(next)->second > start;
  if (overlapsNext || overlapsPrevious) {
    throw Error(strCat(origin, ": its data (bytes ", start, " to ", end,
                       ") overlaps another entry's; the file is corrupt"));
  }
  used.emplace(start, end);
}

std::string readEntry(const Reader& r, size_t central, ByteRanges& used,
                      const std::string& origin) {
  uint16_t method = r.u16(central + 10);
  uint32_t crc = r.u32(central + 16);
  uint32_t packedSize = r.u32(central + 20), size = r.u32(central + 24);
  uint32_t local = r.u32(central + 42);
  if (packedSize == 0xffffffffu || size == 0xffffffffu || local == 0xffffffffu) {
    throw Error(strCat(origin, ": ZIP64 entries (over 4 GiB) are not supported"));
  }
  if (r.u32(local) != kLocalSig) throw Error(strCat(origin, ": bad local header"));
  size_t data = local + 30 + r.u16(local + 26) + r.u16(local + 28);
  std::string packed = r.str(data, packedSize);
  claimRange(used, local, data + packedSize, origin);
  std::string bytes;
  if (method == 0) {
    bytes = std::move(packed);
  } else if (method == 8) {
    bytes = inflateEntry(packed, size, origin);
  } else {
    throw Error(strCat(origin, ": ZIP compression method ", method,
                       " is not supported; expected stored (0) or deflate (8)"));
  }
  uint32_t actual =
      crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size()));
  if (actual != crc) throw Error(strCat(origin, ": CRC mismatch, the file is corrupt"));
  return bytes;
}

void put16(std::string& s, uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& s, uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}

}  // namespace

NamedArrays readNpz(const std::string& path) {
  std::vector<uint8_t> bytes = readFile(path);
  return parseNpz(bytes.data(), bytes.size(), path);
}

NamedArrays parseNpz(const void* data, size_t size, const std::string& path) {
  Reader r(static_cast<const uint8_t*>(data), size, path);
  size_t end = findEndRecord(r, path);
  uint16_t count = r.u16(end + 10);
  size_t central = r.u32(end + 16);
  NamedArrays arrays;
  ByteRanges used;
  for (uint16_t i = 0; i < count; ++i) {
    if (r.u32(central) != kCentralSig) {
      throw Error(strCat("'", path, "' is not a valid .npz file: bad central directory entry ", i));
    }
    uint16_t nameLen = r.u16(central + 28);
    std::string name = r.str(central + 46, nameLen);
    std::string origin = strCat("'", path, "' entry '", name, "'");
    std::string payload = readEntry(r, central, used, origin);
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) {
      name.resize(name.size() - 4);
    }
    arrays.emplace_back(name, parseNpy(payload, origin));
    central += 46 + nameLen + r.u16(central + 30) + r.u16(central + 32);
  }
  return arrays;
}

void writeNpz(const std::string& path, const NamedArrays& arrays) {
  std::string out, directory;
  for (const auto& [name, array] : arrays) {
    std::string entry = name + ".npy";
    std::string payload = serializeNpy(array);
    if (payload.size() >= 0xffffffffu || out.size() >= 0xffffffffu) {
      throw Error(strCat("array '", name, "' is too large for a non-ZIP64 .npz file"));
    }
    uint32_t crc =
        crc32(0, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
    uint32_t offset = static_cast<uint32_t>(out.size());
    auto common = [&](std::string& s) {
      put16(s, 20), put16(s, 0), put16(s, 0), put16(s, 0), put16(s, 0x21);  // version..date
      put32(s, crc), put32(s, payload.size()), put32(s, payload.size());
      put16(s, entry.size()), put16(s, 0);
    };
    put32(out, kLocalSig);
    common(out);
    out += entry + payload;
    put32(directory, kCentralSig);
    put16(directory, 20);
    common(directory);
    put16(directory, 0), put16(directory, 0), put16(directory, 0);
    put32(directory, 0), put32(directory, offset);
    directory += entry;
  }
  uint32_t dirOffset = static_cast<uint32_t>(out.size());
  out += directory;
  put32(out, kEndSig);
  put16(out, 0), put16(out, 0), put16(out, arrays.size()), put16(out, arrays.size());
  put32(out, directory.size()), put32(out, dirOffset), put16(out, 0);
  writeFileAtomic(path, out);
}

}  // namespace kiln::cli
