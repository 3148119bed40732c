// Both sides of the handshake (layout in protocol.h), shared by sessions, the busy refusal and
// the tracker.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/runtime/rpc/protocol.h"
#include "kiln/runtime/rpc/wire.h"

namespace kiln::runtime::rpc {

struct ClientHello {
  uint32_t version = 0;
  std::string token, purpose;
};

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
