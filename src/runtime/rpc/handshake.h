// Both sides of the handshake (layout in protocol.h), shared by sessions, the busy refusal and
// the tracker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kiln/runtime/rpc/protocol.h"
#include "kiln/runtime/rpc/wire.h"

namespace kiln::runtime::rpc {

struct ClientHello {
  uint32_t version = 0;
  std::string token, purpose;
};

// The most a handshake's token or purpose may hold.
inline constexpr uint64_t kMaxHelloText = 4096;

// How far the first bytes of a connection go towards a client's handshake: the hello once they
// hold all of it, else how many more bytes it needs at least (never more than the hello has left,
// so a reader that takes exactly that many never swallows the request after it).
struct HelloProgress {
  std::optional<ClientHello> hello;
  size_t need = 0;
};
// Throws RpcError (naming PEER) as soon as BYTES cannot begin a kiln RPC client's handshake.
HelloProgress parseHello(const std::string& bytes, const std::string& peer);

// Reads a client's handshake; throws RpcError when it is not a kiln RPC client.
ClientHello readHello(Wire& wire);
// Answers it with ANSWER; MESSAGE is the peer's producer when accepted, else the reason.
void answerHello(Wire& wire, HelloAnswer answer, const std::string& message);
// Checks HELLO against this side's version and TOKEN and against what it serves (WANTED, named
// SERVES in the refusal): the refusal to send, or "" to accept.
std::string refusalOf(const ClientHello& hello, const std::string& token, const std::string& wanted,
                      const std::string& serves);

// The client's side: says hello with TOKEN for PURPOSE and returns the peer's producer. Throws
// RpcError naming both versions when they differ or the peer's reason when it refuses, and
// ServerBusy when it serves another session.
std::string sayHello(Wire& wire, const std::string& token, const std::string& purpose);

}  // namespace kiln::runtime::rpc
