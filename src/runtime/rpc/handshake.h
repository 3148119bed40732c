// The server's side of the handshake, shared by a session and by the refusal of a busy server.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/runtime/rpc/wire.h"

namespace kiln::runtime::rpc {

struct ClientHello {
  uint32_t version = 0;
  std::string token;
};

// Reads a client's handshake; throws RpcError when it is not a kiln RPC client.
ClientHello readHello(Wire& wire);
// Answers it: accepted with MESSAGE (the server's producer) when REFUSED is false, else refused
// with MESSAGE as the reason.
void answerHello(Wire& wire, bool refused, const std::string& message);

}  // namespace kiln::runtime::rpc
