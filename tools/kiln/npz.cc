// The .npz container: a ZIP archive of .npy entries, read via its central directory.
#include "npz.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <set>

#include "kiln/runtime/dlpack.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/support/mapped_file.h"

namespace kiln::cli {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
// writeNpz puts each array's bytes at a multiple of this file offset, padding the local header
// with an extra field of this id (the one Android's zipalign uses; readers skip unknown ids).
constexpr size_t kDataAlignment = 64;
constexpr uint16_t kPaddingFieldId = 0xd935;
// ZIP64 (numpy writes it for entries of 2 GiB and more): the end record's locator and record.
constexpr uint32_t kZip64LocatorSig = 0x07064b50, kZip64EndSig = 0x06064b50;
constexpr uint32_t kSaturated32 = 0xffffffffu;

class Reader {
 public:
  Reader(const uint8_t* bytes, size_t size, const std::string& path)
      : b_(bytes), size_(size), path_(path) {}
  uint32_t u32(size_t at) const { return static_cast<uint32_t>(get(at, 4)); }
  uint16_t u16(size_t at) const { return static_cast<uint16_t>(get(at, 2)); }
  uint64_t u64(size_t at) const { return get(at, 8); }
  std::string str(size_t at, size_t n) const { return std::string(view(at, n)); }
  std::string_view view(size_t at, size_t n) const {
    need(at, n);
    return {reinterpret_cast<const char*>(b_ + at), n};
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

// zlib's crc32 takes at most 4 GiB - 1 at a time.
uint32_t crcOf(uint32_t crc, const char* data, size_t size) {
  constexpr size_t kChunk = size_t{1} << 30;
  for (size_t at = 0; at < size; at += kChunk) {
    crc = static_cast<uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(data + at),
                                      static_cast<uInt>(std::min(kChunk, size - at))));
  }
  return crc;
}

size_t findEndRecord(const Reader& r, const std::string& path) {
  if (r.size() >= 22) {
    for (size_t at = r.size() - 22;; --at) {
      if (r.u32(at) == kEndSig) return at;
      if (at == 0 || r.size() - at > 22 + 65535) break;
    }
  }
  throw Error(strCat("'", path, "' is not a valid .npz file: no ZIP end record found"));
}

std::string inflateEntry(std::string_view packed, size_t size, const std::string& origin) {
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

// One entry's bytes: a view into the archive when stored, else the inflated copy.
struct Entry {
  std::string inflated;
  std::string_view bytes;
  bool stored = false;
};

// An entry's sizes and local header offset; a field saturated at 0xffffffff is in the entry's
// ZIP64 extra field (id 1), which holds only the saturated ones, in this order.
struct EntryLayout {
  uint64_t size = 0, packedSize = 0, local = 0;
};

EntryLayout entryLayout(const Reader& r, size_t central, const std::string& origin) {
  EntryLayout e{r.u32(central + 24), r.u32(central + 20), r.u32(central + 42)};
  if (e.size != kSaturated32 && e.packedSize != kSaturated32 && e.local != kSaturated32) return e;
  size_t extra = central + 46 + r.u16(central + 28), end = extra + r.u16(central + 30);
  while (extra + 4 <= end) {
    uint16_t id = r.u16(extra), length = r.u16(extra + 2);
    size_t at = extra + 4, stop = at + length;
    if (id == 1) {
      for (uint64_t* field : {&e.size, &e.packedSize, &e.local}) {
        if (*field != kSaturated32) continue;
        if (at + 8 > stop) throw Error(strCat(origin, ": truncated ZIP64 extra field"));
        *field = r.u64(at);
        at += 8;
      }
      return e;
    }
    extra = stop;
  }
  throw Error(strCat(origin, ": a size or offset is 0xffffffff but there is no ZIP64 extra field"));
}

Entry readEntry(const Reader& r, size_t central, ByteRanges& used, const std::string& origin) {
  uint16_t method = r.u16(central + 10);
  uint32_t crc = r.u32(central + 16);
  EntryLayout layout = entryLayout(r, central, origin);
  r.need(layout.local, 30);
  if (r.u32(layout.local) != kLocalSig) throw Error(strCat(origin, ": bad local header"));
  size_t data = layout.local + 30 + r.u16(layout.local + 26) + r.u16(layout.local + 28);
  std::string_view packed = r.view(data, layout.packedSize);
  claimRange(used, layout.local, data + layout.packedSize, origin);
  Entry e;
  if (method == 0) {
    if (layout.size != layout.packedSize) {
      throw Error(strCat(origin, ": a stored entry of ", layout.packedSize, " bytes claims ",
                         layout.size, " uncompressed"));
    }
    e.bytes = packed;
    e.stored = true;
  } else if (method == 8) {
    e.inflated = inflateEntry(packed, layout.size, origin);
    e.bytes = e.inflated;
  } else {
    throw Error(strCat(origin, ": ZIP compression method ", method,
                       " is not supported; expected stored (0) or deflate (8)"));
  }
  if (crcOf(0, e.bytes.data(), e.bytes.size()) != crc) {
    throw Error(strCat(origin, ": CRC mismatch, the file is corrupt"));
  }
  return e;
}

// The central directory's entry count and offset, from the ZIP64 end record when the classic one
// is saturated.
std::pair<uint64_t, uint64_t> centralDirectory(const Reader& r, size_t end,
                                               const std::string& path) {
  uint64_t count = r.u16(end + 10), offset = r.u32(end + 16);
  if (count != 0xffff && offset != kSaturated32) return {count, offset};
  if (end < 20 || r.u32(end - 20) != kZip64LocatorSig) {
    throw Error(strCat("'", path,
                       "' is not a valid .npz file: a saturated end record without a "
                       "ZIP64 locator"));
  }
  uint64_t record = r.u64(end - 20 + 8);
  if (r.u32(record) != kZip64EndSig) {
    throw Error(strCat("'", path, "' is not a valid .npz file: bad ZIP64 end record"));
  }
  return {r.u64(record + 32), r.u64(record + 48)};
}

void put16(std::string& s, uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& s, uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}

// Makes the array of one entry: a view of the archive's bytes, or a copy.
using ArrayMaker = std::function<runtime::NDArray(const NpyView& v, bool stored)>;

NamedArrays parseArchive(const void* data, size_t size, const std::string& path,
                         const ArrayMaker& make) {
  Reader r(static_cast<const uint8_t*>(data), size, path);
  size_t end = findEndRecord(r, path);
  auto [count, central] = centralDirectory(r, end, path);
  // Each directory entry takes at least 46 bytes: a count beyond that is a lie, not a loop bound.
  if (count > r.size() / 46) {
    throw Error(strCat("'", path, "' is not a valid .npz file: ", count, " entries in ", r.size(),
                       " bytes"));
  }
  NamedArrays arrays;
  ByteRanges used;
  for (uint64_t i = 0; i < count; ++i) {
    if (r.u32(central) != kCentralSig) {
      throw Error(strCat("'", path, "' is not a valid .npz file: bad central directory entry ", i));
    }
    uint16_t nameLen = r.u16(central + 28);
    std::string name = r.str(central + 46, nameLen);
    std::string origin = strCat("'", path, "' entry '", name, "'");
    Entry entry = readEntry(r, central, used, origin);
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) {
      name.resize(name.size() - 4);
    }
    NpyView view = parseNpyView(entry.bytes, origin);
    // Text is decoded, never viewed in place.
    arrays.emplace_back(
        name, view.dtype.isString() ? arrayOfNpy(view, origin) : make(view, entry.stored));
    central += 46 + nameLen + r.u16(central + 30) + r.u16(central + 32);
  }
  return arrays;
}

runtime::NDArray copyOf(const NpyView& v) {
  return runtime::NDArray::fromBytes(v.shape, v.dtype, v.data, v.bytes);
}

// An array over bytes inside FILE's mapping, which it keeps alive (read-only memory).
runtime::NDArray viewOf(const std::shared_ptr<MappedFile>& file, const NpyView& v) {
  struct Owner {
    std::shared_ptr<MappedFile> file;
    runtime::Shape shape;
    DLManagedTensor managed{};
  };
  auto* owner = new Owner{file, v.shape};
  DLTensor& t = owner->managed.dl_tensor;
  t.data = const_cast<char*>(v.data);
  t.device = runtime::Device::cpu().dl();
  t.ndim = static_cast<int32_t>(owner->shape.size());
  t.dtype = v.dtype.dl();
  t.shape = owner->shape.data();
  owner->managed.manager_ctx = owner;
  owner->managed.deleter = [](DLManagedTensor* m) { delete static_cast<Owner*>(m->manager_ctx); };
  try {
    return runtime::NDArray::fromDLPack(&owner->managed);
  } catch (...) {
    delete owner;
    throw;
  }
}

}  // namespace

NamedArrays readNpz(const std::string& path) {
  auto file = std::make_shared<MappedFile>(path);
  // Small arrays are copied, so the mapping is released as soon as the large ones are. So is an
  // array whose bytes are not aligned to its element size (any ZIP writer may put them anywhere;
  // writeNpz aligns them to 64 bytes): reading it in place would be undefined behaviour.
  constexpr size_t kViewBytes = size_t{1} << 20;
  return parseArchive(file->data(), file->size(), path, [&](const NpyView& v, bool stored) {
    size_t align = std::max<size_t>(1, v.dtype.bytes());
    bool aligned = reinterpret_cast<uintptr_t>(v.data) % align == 0;
    return stored && aligned && v.bytes >= kViewBytes ? viewOf(file, v) : copyOf(v);
  });
}

NamedArrays parseNpz(const void* data, size_t size, const std::string& path) {
  return parseArchive(data, size, path, [](const NpyView& v, bool) { return copyOf(v); });
}

void writeNpz(const std::string& path, const NamedArrays& arrays) {
  AtomicFileWriter file(path);
  std::string directory;
  uint64_t offset = 0;
  std::set<std::string> names;
  for (const auto& [name, array] : arrays) {
    if (!names.insert(name).second) {
      throw Error(strCat("cannot write '", path, "': two arrays are named '", name, "'"));
    }
    std::string entry = name + ".npy";
    std::string header = npyHeader(array);
    // Text is encoded for the file; any other array's bytes are streamed as they are.
    std::string text = array.dtype().isString() ? npyText(array) : std::string();
    const char* body =
        array.dtype().isString() ? text.data() : static_cast<const char*>(array.data());
    size_t bodyBytes = array.dtype().isString() ? text.size() : array.nbytes();
    uint64_t payload = header.size() + bodyBytes;
    if (payload >= 0xffffffffu || offset >= 0xffffffffu) {
      throw Error(strCat("array '", name, "' is too large for a non-ZIP64 .npz file"));
    }
    uint32_t crc = crcOf(crcOf(0, header.data(), header.size()), body, bodyBytes);
    // The local header's extra field pads the array's bytes to a 64-byte file offset (as zipalign
    // does), so readNpz can use them in place, aligned for any element type and vector load.
    size_t unpadded = offset + 30 + entry.size() + 4 + header.size();
    size_t padding = (kDataAlignment - unpadded % kDataAlignment) % kDataAlignment;
    auto common = [&](std::string& s, size_t extra) {
      put16(s, 20), put16(s, 0), put16(s, 0), put16(s, 0), put16(s, 0x21);  // version..date
      put32(s, crc), put32(s, payload), put32(s, payload);
      put16(s, entry.size()), put16(s, extra);
    };
    std::string local;
    put32(local, kLocalSig);
    common(local, 4 + padding);
    local += entry;
    put16(local, kPaddingFieldId), put16(local, padding);
    local.append(padding, '\0');
    local += header;
    file.write(local.data(), local.size());
    file.write(body, bodyBytes);
    put32(directory, kCentralSig);
    put16(directory, 20);
    common(directory, 0);
    put16(directory, 0), put16(directory, 0), put16(directory, 0);
    put32(directory, 0), put32(directory, static_cast<uint32_t>(offset));
    directory += entry;
    offset += local.size() + bodyBytes;
  }
  if (offset >= 0xffffffffu) throw Error(strCat("'", path, "' would exceed 4 GiB (ZIP64)"));
  std::string tail = directory;
  put32(tail, kEndSig);
  put16(tail, 0), put16(tail, 0), put16(tail, arrays.size()), put16(tail, arrays.size());
  put32(tail, directory.size()), put32(tail, static_cast<uint32_t>(offset)), put16(tail, 0);
  file.write(tail.data(), tail.size());
  file.commit();
}

}  // namespace kiln::cli
