// The wire format's integers, text, tensors and tagged values.
#include "kiln/runtime/rpc/wire.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <new>

#include "kiln/runtime/c_api.h"

namespace kiln::runtime::rpc {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 16;
// A tensor list on the wire holds at most this many tensors (each read before the next).
constexpr uint64_t kMaxListTensors = uint64_t{1} << 20;

template <typename T>
void putLe(std::string& out, T v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out += static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xFF);
}

uint64_t getLe(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

std::string tensorSpecProblem(const Shape& shape, DataType t, uint64_t maxBytes) {
  if (shape.size() > kMaxTensorRank) {
    return strCat("has rank ", shape.size(), "; at most ", kMaxTensorRank, " is accepted");
  }
  uint64_t bytes = t.bytes();
  for (int64_t d : shape) {
    if (d < 0) return strCat("has the dimension ", d, " in its shape; expected sizes >= 0");
    if (d != 0 && bytes > maxBytes / static_cast<uint64_t>(d)) {
      return strCat("of shape ", shapeStr(shape), " is larger than ", maxBytes,
                    " bytes, the most one tensor may hold here");
    }
    bytes *= static_cast<uint64_t>(d);
  }
  return "";
}

bool Wire::readFlag(const char* what) {
  uint8_t b = readU8(what);
  if (b > 1) {
    throw RpcError(
        strCat("protocol error: ", what, " holds the flag byte ", int(b), "; expected 0 or 1"));
  }
  return b == 1;
}

DataType readDataType(Wire& wire, const char* what) {
  DataType t;
  t.code = wire.readU8(what);
  t.bits = wire.readU8(what);
  uint32_t lanes = wire.readU32(what);
  t.lanes = static_cast<uint16_t>(lanes);
  if (lanes > 0xFFFF || !t.known()) {
    throw RpcError(strCat("protocol error: ", what, " has dtype code ", int(t.code), ", bits ",
                          int(t.bits), " and lanes ", lanes,
                          "; expected a type kiln knows (docs/rpc.md: int, uint, float, bfloat, "
                          "bool or string codes, 8 to 64 bits, 1 to 65535 lanes)"));
  }
  return t;
}

void Wire::put(const void* data, size_t size) {
  out_.append(static_cast<const char*>(data), size);
  if (out_.size() >= kBufferBytes) flush();
}

void Wire::u32(uint32_t v) {
  std::string b;
  putLe(b, v, 4);
  put(b.data(), 4);
}

void Wire::u64(uint64_t v) {
  std::string b;
  putLe(b, v, 8);
  put(b.data(), 8);
}

void Wire::f64(double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  u64(bits);
}

void Wire::text(const std::string& s) {
  u64(s.size());
  raw(s.data(), s.size());
}

void Wire::raw(const void* data, size_t size) {
  if (size < kBufferBytes) {
    put(data, size);
    return;
  }
  flush();
  socket_.writeAll(data, size, timeout_, "data");
}

void Wire::flush() {
  if (out_.empty()) return;
  socket_.writeAll(out_.data(), out_.size(), timeout_, "a message");
  out_.clear();
}

void Wire::readRaw(void* data, size_t size, const char* what) {
  flush();  // a request is complete before its reply is awaited
  socket_.readExact(data, size, timeout_, what);
}

uint8_t Wire::readU8(const char* what) {
  unsigned char b = 0;
  readRaw(&b, 1, what);
  return b;
}

uint32_t Wire::readU32(const char* what) {
  unsigned char b[4];
  readRaw(b, 4, what);
  return static_cast<uint32_t>(getLe(b, 4));
}

uint64_t Wire::readU64(const char* what) {
  unsigned char b[8];
  readRaw(b, 8, what);
  return getLe(b, 8);
}

double Wire::readF64(const char* what) {
  uint64_t bits = readU64(what);
  double v = 0;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

std::string Wire::readText(const char* what, uint64_t limit) {
  uint64_t size = readU64(what);
  if (size > limit) {
    throw RpcError(strCat("protocol error: ", what, " from ", socket_.peer(), " claims ", size,
                          " bytes; at most ", limit, " are accepted"));
  }
  std::string s(size, '\0');
  readRaw(s.data(), size, what);
  return s;
}

void writeTensor(Wire& wire, const NDArray& a) {
  DataType t = a.dtype();
  wire.u8(t.code);
  wire.u8(t.bits);
  wire.u32(t.lanes);
  wire.u32(static_cast<uint32_t>(a.ndim()));
  for (int64_t d : a.shape()) wire.u64(static_cast<uint64_t>(d));
  if (t.isString()) {  // per element its length and bytes
    const auto* strings = a.data<std::string>();
    uint64_t payload = 0;
    for (int64_t e = 0; e < a.numel(); ++e) payload += 8 + strings[e].size();
    wire.u64(payload);
    for (int64_t e = 0; e < a.numel(); ++e) wire.text(strings[e]);
    return;
  }
  wire.u64(a.nbytes());
  wire.raw(a.data(), a.nbytes());
}

namespace {

// The strings of a string tensor: NBYTES of (u64 length, bytes) pairs, one per element of A.
void readStrings(Wire& wire, NDArray& a, uint64_t nbytes, const char* what) {
  auto* strings = a.data<std::string>();
  uint64_t left = nbytes;
  for (int64_t e = 0; e < a.numel(); ++e) {
    if (left < 8) {
      throw RpcError(strCat("protocol error: ", what, " claims ", nbytes,
                            " bytes, too few for its ", a.numel(), " strings"));
    }
    strings[e] = wire.readText(what, left - 8);
    left -= 8 + strings[e].size();
  }
  if (left != 0) {
    throw RpcError(strCat("protocol error: ", what, " claims ", nbytes, " bytes; its strings hold ",
                          nbytes - left));
  }
}

}  // namespace

NDArray readTensor(Wire& wire, const char* what) {
  DataType t = readDataType(wire, what);
  uint32_t rank = wire.readU32(what);
  if (rank > kMaxTensorRank) {
    throw RpcError(strCat("protocol error: ", what, " has rank ", rank, "; at most ",
                          kMaxTensorRank, " is accepted"));
  }
  Shape shape;
  for (uint32_t i = 0; i < rank; ++i) {
    uint64_t d = wire.readU64(what);
    shape.push_back(d > uint64_t{INT64_MAX} ? -1 : static_cast<int64_t>(d));
  }
  uint64_t maxBytes = wire.limits().tensorBytes;
  if (std::string problem = tensorSpecProblem(shape, t, maxBytes); !problem.empty()) {
    throw RpcError(strCat("protocol error: ", what, " ", problem));
  }
  uint64_t expected = t.bytes() * static_cast<uint64_t>(shapeNumel(shape));
  uint64_t nbytes = wire.readU64(what);
  if (t.isString() && (nbytes > maxBytes || nbytes / 8 < expected / t.bytes())) {
    throw RpcError(strCat("protocol error: ", what, " claims ", nbytes, " bytes for ",
                          expected / t.bytes(),
                          " strings; expected 8 bytes or more each and at "
                          "most ",
                          maxBytes, " in all"));
  }
  if (nbytes != expected && !t.isString()) {
    throw RpcError(strCat("protocol error: ", what, " claims ", nbytes, " bytes; its shape ",
                          shapeStr(shape), " of ", t.str(), " holds ", expected));
  }
  NDArray a;
  try {
    a = NDArray::empty(shape, t);
  } catch (const std::bad_alloc&) {
    throw RpcError(strCat("out of memory receiving ", what, " (", nbytes, " bytes)"));
  }
  if (t.isString()) {
    readStrings(wire, a, nbytes, what);
  } else {
    wire.readRaw(a.data(), nbytes, what);
  }
  return a;
}

void writeValue(Wire& wire, const Value& value, HandleCodec& codec) {
  int32_t code = value.typeCode();
  if (code == kKilnModule || code == kKilnFunction) {
    codec.writeObject(wire, value);
    return;
  }
  wire.u32(static_cast<uint32_t>(code));
  switch (code) {
    case kKilnNone:
      break;
    case kKilnInt:
      wire.u64(static_cast<uint64_t>(value.asInt()));
      break;
    case kKilnFloat:
      wire.f64(value.asDouble());
      break;
    case kKilnBool:
      wire.u8(value.asBool() ? 1 : 0);
      break;
    case kKilnString:
      wire.text(value.asString());
      break;
    case kKilnBytes:
      wire.text(value.asBytes().data);
      break;
    case kKilnTensor:
      writeTensor(wire, value.asNDArray());
      break;
    case kKilnDevice:
      wire.u32(static_cast<uint32_t>(value.asDevice().type));
      wire.u32(static_cast<uint32_t>(value.asDevice().id));
      break;
    case kKilnDataType:
      wire.u8(value.asDataType().code);
      wire.u8(value.asDataType().bits);
      wire.u32(value.asDataType().lanes);
      break;
    case kKilnJson:
      wire.text(value.asJson().dump());
      break;
    case kKilnTensorList: {
      const TensorList& list = value.asTensorList();
      wire.u8(list.none ? 1 : 0);
      wire.u64(list.items.size());
      for (const NDArray& a : list.items) writeTensor(wire, a);
      break;
    }
    default:
      KILN_CHECK(false, "no wire form for type code ", code);
  }
}

Value readValue(Wire& wire, HandleCodec& codec, const char* what) {
  uint32_t code = wire.readU32(what);
  switch (code) {
    case kKilnNone:
      return Value();
    case kKilnInt:
      return Value(static_cast<int64_t>(wire.readU64(what)));
    case kKilnFloat:
      return Value(wire.readF64(what));
    case kKilnBool:
      return Value(wire.readFlag(what));
    case kKilnString:
      return Value(wire.readText(what));
    case kKilnBytes:
      return Value(Bytes{wire.readText(what, wire.limits().tensorBytes)});
    case kKilnTensor:
      return Value(readTensor(wire, what));
    case kKilnDevice: {
      uint32_t code = wire.readU32(what);
      // Only DLPack's device codes are a DLDeviceType; any other is refused before the cast.
      constexpr uint32_t kKnown[] = {kDLCPU,   kDLCUDA, kDLCUDAHost, kDLOpenCL, kDLVulkan,
                                     kDLMetal, kDLVPI,  kDLROCM,     kDLExtDev};
      if (std::find(std::begin(kKnown), std::end(kKnown), code) == std::end(kKnown)) {
        throw RpcError(strCat("protocol error: ", what, " holds device type code ", code,
                              "; expected a DLPack device type (1-4, 7-10 or 12)"));
      }
      auto id = static_cast<int32_t>(wire.readU32(what));
      return Value(Device{static_cast<DLDeviceType>(code), id});
    }
    case kKilnDataType:
      return Value(readDataType(wire, what));
    case kKilnJson: {
      std::string text = wire.readText(what);
      try {
        return Value(Json::parse(text));
      } catch (const Error& e) {
        throw RpcError(strCat("protocol error: ", what, " holds invalid JSON: ", e.what()));
      }
    }
    case kKilnModule: {
      uint64_t id = wire.readU64(what);
      return codec.readObject(kKilnModule, id, wire.readText(what, 4096));
    }
    case kKilnFunction:
    case kKilnRemoteTensor:
      return codec.readObject(static_cast<int32_t>(code), wire.readU64(what), "");
    case kKilnTensorList: {
      TensorList list;
      list.none = wire.readFlag(what);
      uint64_t n = wire.readU64(what);
      if (n > kMaxListTensors || (list.none && n != 0)) {
        throw RpcError(strCat("protocol error: ", what, " is a tensor list of ", n, " tensors",
                              list.none ? " marked none" : "", "; expected at most ",
                              kMaxListTensors, (list.none ? ", none for none" : "")));
      }
      for (uint64_t k = 0; k < n; ++k) list.items.push_back(readTensor(wire, what));
      return Value(std::move(list));
    }
    default:
      throw RpcError(strCat("protocol error: ", what, " has type code ", code,
                            "; expected 0 to 13 (docs/rpc.md)"));
  }
}

}  // namespace kiln::runtime::rpc
