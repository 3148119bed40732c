// The kiln RPC protocol (docs/rpc.md): a handshake, then requests answered in order. Every message
// is built from the wire format of wire.h.
//
//   handshake  client: "KILNRPC\0", u32 version, text token, text purpose
//              peer:   "KILNRPC\0", u32 version, u8 answer (HelloAnswer), text message
//   purposes   "session" (a server), "register", "request", "status" (a tracker, tracker.h)
//   request    u32 op, then the op's fields
//   reply      u8 status (0 ok, 1 failed), then the result value, or text error
#pragma once

#include <cstdint>

namespace kiln::runtime::rpc {

inline constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'R', 'P', 'C', '\0'};
// Bumped on any change to the messages; peers of different versions refuse each other, naming
// both versions.
inline constexpr uint32_t kProtocolVersion = 2;

enum class Op : uint32_t {
  kClose = 1,            // ends the session; the server removes its folder
  kInfo = 2,             // -> Json {protocol, producer, arch, cores, session_dir}
  kUpload = 3,           // text path, u64 size, bytes -> none
  kRemoveFile = 4,       // text path -> none
  kListFiles = 5,        // -> Json [paths]
  kLoadModule = 6,       // text path -> Module
  kGetFunction = 7,      // u64 module, text name -> Function
  kCall = 8,             // u64 function, u32 n, n values -> value
  kFree = 9,             // u64 handle -> none
  kAllocTensor = 10,     // Json {shape, dtype} -> RemoteTensor
  kCopyToRemote = 11,    // u64 tensor, tensor -> none
  kCopyFromRemote = 12,  // u64 tensor -> tensor
  kTimeEvaluator = 13,   // u64 module, text name, u32 repeat, u32 number, u32 n, values -> Json
  kEcho = 14,            // value -> the same value
};

// The answer to a handshake: refused (the message says why), accepted (the message is the peer's
// producer), or busy (a server serving another session; a tracker's client asks again).
enum HelloAnswer : uint8_t { kRefused = 0, kAccepted = 1, kBusy = 2 };

enum Status : uint8_t { kOk = 0, kFailed = 1 };

}  // namespace kiln::runtime::rpc
