// The RPC wire format: little-endian integers, length-prefixed text, and runtime values tagged
// with their KilnTypeCode (c_api.h). Tensors travel as a header and their raw bytes, written from
// and read into the array's own memory, so a tensor of any size crosses without a second copy.
// Everything read is bounds-checked: a peer that sends garbage gets an RpcError, never a crash or
// an allocation out of proportion to what it sent.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "kiln/runtime/module.h"
#include "kiln/runtime/rpc/socket.h"

namespace kiln::runtime::rpc {

// Limits on what a peer may ask the reader to allocate.
inline constexpr uint64_t kMaxTextBytes = uint64_t{64} << 20;    // names, JSON, messages
inline constexpr uint64_t kMaxBlobBytes = uint64_t{64} << 30;    // Bytes values, uploads
inline constexpr uint64_t kMaxTensorBytes = uint64_t{64} << 30;  // one tensor
inline constexpr uint32_t kMaxTensorRank = 32;
inline constexpr uint32_t kMaxArgs = 1024;

// What one value read from a peer may make the reader allocate at most: a server lowers it to
// the memory it has (ServerOptions::maxTensorBytes).
struct WireLimits {
  uint64_t tensorBytes = kMaxTensorBytes;  // one tensor, or one Bytes value
};

// A connection's byte stream: writes are buffered until flush(); large payloads bypass the
// buffer. Every read and write waits at most timeout().
class Wire {
 public:
  Wire(Socket& socket, Millis timeout) : socket_(socket), timeout_(timeout) {}

  Millis timeout() const { return timeout_; }
  void setTimeout(Millis t) { timeout_ = t; }
  const WireLimits& limits() const { return limits_; }
  void setLimits(const WireLimits& limits) { limits_ = limits; }
  Socket& socket() { return socket_; }

  void u8(uint8_t v) { put(&v, 1); }
  void u32(uint32_t v);
  void u64(uint64_t v);
  void f64(double v);
  void text(const std::string& s);  // u64 length + bytes
  void raw(const void* data, size_t size);
  void flush();

  uint8_t readU8(const char* what);
  uint32_t readU32(const char* what);
  uint64_t readU64(const char* what);
  double readF64(const char* what);
  // A byte that must be 0 or 1 (bools, flags); anything else is a protocol error.
  bool readFlag(const char* what);
  // Refused (before allocating) when longer than LIMIT.
  std::string readText(const char* what, uint64_t limit = kMaxTextBytes);
  void readRaw(void* data, size_t size, const char* what);

 private:
  void put(const void* data, size_t size);
  Socket& socket_;
  Millis timeout_;
  WireLimits limits_;
  std::string out_;
};

// How one side stands for the objects that stay on the server: modules, functions and tensors
// by handle.
class HandleCodec {
 public:
  virtual ~HandleCodec() = default;
  // Writing a Module or PackedFunc value: write its type code and handle (the server registers
  // the object; a client writes the handle of a remote object and refuses local ones).
  virtual void writeObject(Wire& wire, const Value& value) = 0;
  // Reading type code CODE (kKilnModule, kKilnFunction, kKilnRemoteTensor) with handle ID; a
  // module comes with its TYPE_KEY ("graph_executor"), empty otherwise.
  virtual Value readObject(int32_t code, uint64_t id, const std::string& typeKey) = 0;
};

void writeValue(Wire& wire, const Value& value, HandleCodec& codec);
Value readValue(Wire& wire, HandleCodec& codec, const char* what);
// Why a tensor of SHAPE and T may not cross the wire or be made on a server ("has rank 40; at
// most 32 is accepted", more than MAX_BYTES), or "" when it may; checked before anything is
// allocated for it.
std::string tensorSpecProblem(const Shape& shape, DataType t, uint64_t maxBytes = kMaxTensorBytes);
// A data type (u8 code, u8 bits, u32 lanes); a type kiln does not know is a protocol error.
DataType readDataType(Wire& wire, const char* what);
// A tensor: dtype, rank, dims, byte count, bytes (streamed from its memory).
void writeTensor(Wire& wire, const NDArray& a);
NDArray readTensor(Wire& wire, const char* what);

}  // namespace kiln::runtime::rpc
