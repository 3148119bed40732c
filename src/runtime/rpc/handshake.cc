// The server's side of the handshake (layout in protocol.h).
#include "handshake.h"

#include <cstring>

#include "kiln/runtime/rpc/protocol.h"

namespace kiln::runtime::rpc {

ClientHello readHello(Wire& wire) {
  char magic[8];
  wire.readRaw(magic, sizeof magic, "a handshake");
  if (std::memcmp(magic, kMagic, sizeof magic) != 0) {
    throw RpcError(strCat("protocol error: ", wire.socket().peer(),
                          " is not a kiln RPC client (bad handshake)"));
  }
  ClientHello hello;
  hello.version = wire.readU32("a handshake");
  hello.token = wire.readText("a handshake token", 4096);
  wire.readText("a handshake purpose", 4096);
  return hello;
}

void answerHello(Wire& wire, bool refused, const std::string& message) {
  wire.raw(kMagic, sizeof kMagic);
  wire.u32(kProtocolVersion);
  wire.u8(refused ? 0 : 1);
  wire.text(message);
  wire.flush();
}

}  // namespace kiln::runtime::rpc
