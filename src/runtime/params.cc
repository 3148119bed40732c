// The params format: named weights as one byte string, the unit of get_params/load_params and of an
// artifact's weights. Every field is validated, since the bytes may come from anywhere.
//
// Layout (integers little-endian; tensor bytes in the host's order, which is little-endian on
// every supported target):
//
//   "KILNPRM2"                      8 bytes of magic
//   u64 tensor count
//   per tensor:
//     u32 name length, name bytes
//     u8 dtype code, u8 dtype bits, u16 dtype lanes
//     u32 ndim, ndim x i64 dims
//     u64 byte count                == numel * dtype bytes
//     zero bytes up to the next multiple of 64 from the start of the blob
//     bytes
//   u64 XXH64 of every byte before it
//
// The padding lets a reader whose blob starts 64-byte aligned (a mapped file, an artifact's
// section) hand the tensors out in place; the checksum catches a damaged or truncated file.
#include <bit>
#include <cstring>
#include <limits>
#include <set>

#include "byte_stream.h"
#include "kiln/runtime/artifact.h"
#include "kiln/support/error.h"
#include "kiln/support/hash64.h"

namespace kiln::runtime {

static_assert(std::endian::native == std::endian::little,
              "params store tensor bytes little-endian; a big-endian host needs byte swapping");

namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'P', 'R', 'M', '2'};
constexpr size_t kDataAlignment = 64;

size_t padding(size_t offset) {
  return (kDataAlignment - offset % kDataAlignment) % kDataAlignment;
}
constexpr uint32_t kMaxDims = 64;

bool knownDataType(DataType t) {
  bool okBits = t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  bool okCode = t.code == kDLInt || t.code == kDLUInt || t.code == kDLFloat ||
                t.code == kDLBfloat || t.code == kDLBool;
  return okBits && okCode && t.lanes >= 1;
}

std::pair<std::string, NDArray> readTensor(ByteReader& in, const ParamSource& source) {
  std::string name = in.str("tensor name");
  size_t dtypeAt = in.offset();
  DataType dtype;
  dtype.code = in.u8("dtype code");
  dtype.bits = in.u8("dtype bits");
  dtype.lanes = in.u16("dtype lanes");
  if (!knownDataType(dtype)) {
    in.failAt(dtypeAt,
              strCat("tensor '", name, "' has an unsupported data type (code ", int(dtype.code),
                     ", bits ", int(dtype.bits), ", lanes ", dtype.lanes, ")"));
  }
  size_t shapeAt = in.offset();
  uint32_t ndim = in.u32("ndim");
  if (ndim > kMaxDims) {
    in.failAt(shapeAt, strCat("tensor '", name, "' has ", ndim, " dimensions; at most ", kMaxDims,
                              " are supported"));
  }
  Shape shape(ndim);
  for (uint32_t i = 0; i < ndim; ++i) {
    uint64_t d = in.u64("dimension");
    if (d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      in.failAt(shapeAt, strCat("tensor '", name, "' has a negative dimension"));
    }
    shape[i] = static_cast<int64_t>(d);
  }
  size_t sizeAt = in.offset();
  uint64_t nbytes = in.u64("byte count");
  in.raw(padding(in.offset()), "alignment padding");
  // Checked against the remaining bytes first, so a hostile shape cannot trigger a huge allocation.
  const uint8_t* bytes = in.raw(nbytes, "tensor bytes");
  try {
    bool aligned = reinterpret_cast<uintptr_t>(bytes) % kDataAlignment == 0;
    if (source.owner && aligned) {
      return {std::move(name),
              NDArray::fromExternal(shape, dtype, bytes, nbytes, source.owner, /*readOnly=*/true)};
    }
    return {std::move(name), NDArray::fromBytes(shape, dtype, bytes, nbytes)};
  } catch (const Error& e) {
    in.failAt(sizeAt, strCat("tensor '", name, "': ", e.what()));
  }
}

}  // namespace

ParamsSummary writeParams(const ParamList& params,
                          const std::function<void(const void* data, size_t size)>& sink) {
  static const char kZeros[kDataAlignment] = {};
  Hasher64 hash;
  uint64_t written = 0;
  auto emit = [&](const void* data, size_t size) {
    hash.update(data, size);
    sink(data, size);
    written += size;
  };
  ByteWriter head;  // the magic and count, then each tensor's header and padding
  head.raw(kMagic, sizeof(kMagic));
  head.u64(params.size());
  for (const auto& [name, array] : params) {
    DataType t = array.dtype();
    if (t.isString()) {
      throw Error(strCat("parameter '", name, "' is a string tensor (", t.str(),
                         shapeStr(array.shape()),
                         "); kiln's weights are numeric: strings reach a model as inputs"));
    }
    head.str(name);
    head.u8(t.code);
    head.u8(t.bits);
    head.u16(t.lanes);
    head.u32(static_cast<uint32_t>(array.ndim()));
    for (int64_t d : array.shape()) head.u64(static_cast<uint64_t>(d));
    head.u64(array.nbytes());
    head.raw(kZeros, padding(written + head.size()));
    std::string piece = head.take();
    emit(piece.data(), piece.size());
    emit(array.data(), array.nbytes());
  }
  std::string last = head.take();
  emit(last.data(), last.size());
  uint64_t sum = hash.digest();
  unsigned char trailer[8];
  for (int i = 0; i < 8; ++i) trailer[i] = static_cast<unsigned char>((sum >> (8 * i)) & 0xFF);
  sink(trailer, sizeof trailer);
  return {written + sizeof trailer, sum};
}

std::string saveParams(const ParamList& params) {
  std::string bytes;
  writeParams(params, [&](const void* data, size_t size) {
    bytes.append(static_cast<const char*>(data), size);
  });
  return bytes;
}

ParamList readParams(const void* data, size_t size, const ParamSource& source) {
  const std::string what = source.origin.empty() ? "params blob" : source.origin;
  if (size < sizeof(kMagic) || std::memcmp(data, kMagic, sizeof(kMagic)) != 0) {
    throw Error(strCat(what,
                       " is not kiln weights: it does not start with the magic bytes \"KILNPRM2\""
                       " (written by get_params, kiln compile --params external)"));
  }
  if (size < sizeof(kMagic) + 16) {
    throw Error(strCat(what, " is truncated: ", size, " bytes is less than an empty params blob"));
  }
  size_t body = size - 8;
  uint64_t recorded = paramsChecksum(data, size);
  if (source.verifyChecksum) {
    uint64_t actual = hash64(data, body);
    if (actual != recorded) {
      throw Error(strCat(what, " is corrupt or truncated: its bytes hash to ", actual,
                         " but its checksum says ", recorded));
    }
  }
  ByteReader in(data, body, what);
  in.raw(sizeof(kMagic), "magic");
  uint64_t count = in.u64("tensor count");
  ParamList params;
  std::set<std::string> names;
  for (uint64_t i = 0; i < count; ++i) {
    size_t at = in.offset();
    params.push_back(readTensor(in, source));
    if (!names.insert(params.back().first).second) {
      in.failAt(at, strCat("duplicate tensor name '", params.back().first, "'"));
    }
  }
  if (in.remaining() != 0)
    in.fail(strCat(in.remaining(), " unexpected bytes after the last tensor"));
  return params;
}

ParamList loadParams(const std::string& bytes) {
  return readParams(bytes.data(), bytes.size(), ParamSource{});
}

uint64_t paramsChecksum(const void* data, size_t size) {
  if (size < 8) return 0;
  ByteReader trailer(static_cast<const uint8_t*>(data) + size - 8, 8, "params checksum");
  return trailer.u64("checksum");
}

}  // namespace kiln::runtime
