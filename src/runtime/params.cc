// The params format: named weights as one byte string, the unit of get_params/load_params and of an
// artifact's weights. Every field is validated, since the bytes may come from anywhere.
//
// Layout (integers little-endian; tensor bytes in the host's order, which is little-endian on
// every supported target):
//
//   "KILNPRMS"                      8 bytes of magic
//   u64 tensor count
//   per tensor:
//     u32 name length, name bytes
//     u8 dtype code, u8 dtype bits, u16 dtype lanes
//     u32 ndim, ndim x i64 dims
//     u64 byte count                == numel * dtype bytes
//     bytes
#include <bit>
#include <limits>
#include <set>

#include "byte_stream.h"
#include "kiln/runtime/artifact.h"
#include "kiln/support/error.h"

namespace kiln::runtime {

static_assert(std::endian::native == std::endian::little,
              "params store tensor bytes little-endian; a big-endian host needs byte swapping");

namespace {

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'P', 'R', 'M', 'S'};
constexpr uint32_t kMaxDims = 64;

bool knownDataType(DataType t) {
  bool okBits = t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  bool okCode = t.code == kDLInt || t.code == kDLUInt || t.code == kDLFloat ||
                t.code == kDLBfloat || t.code == kDLBool;
  return okBits && okCode && t.lanes >= 1;
}

std::pair<std::string, NDArray> readTensor(ByteReader& in) {
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
  // Checked against the remaining bytes first, so a hostile shape cannot trigger a huge allocation.
  const uint8_t* bytes = in.raw(nbytes, "tensor bytes");
  try {
    return {std::move(name), NDArray::fromBytes(shape, dtype, bytes, nbytes)};
  } catch (const Error& e) {
    in.failAt(sizeAt, strCat("tensor '", name, "': ", e.what()));
  }
}

}  // namespace

std::string saveParams(const ParamList& params) {
  ByteWriter out;
  out.raw(kMagic, sizeof(kMagic));
  out.u64(params.size());
  for (const auto& [name, array] : params) {
    out.str(name);
    DataType t = array.dtype();
    out.u8(t.code);
    out.u8(t.bits);
    out.u16(t.lanes);
    out.u32(static_cast<uint32_t>(array.ndim()));
    for (int64_t d : array.shape()) out.u64(static_cast<uint64_t>(d));
    out.u64(array.nbytes());
    out.raw(array.data(), array.nbytes());
  }
  return out.take();
}

ParamList loadParams(const std::string& bytes) {
  ByteReader in(bytes.data(), bytes.size(), "params blob");
  if (bytes.size() < sizeof(kMagic) || bytes.compare(0, sizeof(kMagic), kMagic, sizeof(kMagic))) {
    throw Error("params blob is malformed: it does not start with the magic bytes \"KILNPRMS\"");
  }
  in.raw(sizeof(kMagic), "magic");
  uint64_t count = in.u64("tensor count");
  ParamList params;
  std::set<std::string> names;
  for (uint64_t i = 0; i < count; ++i) {
    size_t at = in.offset();
    params.push_back(readTensor(in));
    if (!names.insert(params.back().first).second) {
      in.failAt(at, strCat("duplicate tensor name '", params.back().first, "'"));
    }
  }
  if (in.remaining() != 0)
    in.fail(strCat(in.remaining(), " unexpected bytes after the last tensor"));
  return params;
}

}  // namespace kiln::runtime
