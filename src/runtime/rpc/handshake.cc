// Both sides of the handshake (layout in protocol.h).
#include "handshake.h"

#include <algorithm>
#include <cstring>

namespace kiln::runtime::rpc {
namespace {

// Compares in time independent of where the strings differ.
bool sameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= a[i] ^ b[i % std::max<size_t>(b.size(), 1)];
  return diff == 0;
}

}  // namespace

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
  hello.purpose = wire.readText("a handshake purpose", 4096);
  return hello;
}

void answerHello(Wire& wire, HelloAnswer answer, const std::string& message) {
  wire.raw(kMagic, sizeof kMagic);
  wire.u32(kProtocolVersion);
  wire.u8(static_cast<uint8_t>(answer));
  wire.text(message);
  wire.flush();
}

std::string refusalOf(const ClientHello& hello, const std::string& token, const std::string& wanted,
                      const std::string& serves) {
  if (hello.version != kProtocolVersion) {
    return strCat("the client speaks kiln RPC protocol ", hello.version, "; this ", serves,
                  " speaks ", kProtocolVersion);
  }
  if (!token.empty() && !sameSecret(hello.token, token)) {
    return strCat("the client's token does not match the ", serves, "'s --auth-token-file");
  }
  if (wanted.find(strCat("|", hello.purpose, "|")) == std::string::npos) {
    return strCat("this is a kiln RPC ", serves, "; it does not serve '", hello.purpose,
                  hello.purpose == "session"
                      ? "' (ask it for a session by key: kiln run --rpc-tracker HOST:PORT "
                        "--rpc-key KEY)"
                      : "' (that is what a tracker serves)");
  }
  return "";
}

std::string sayHello(Wire& wire, const std::string& token, const std::string& purpose) {
  const std::string& peer = wire.socket().peer();
  wire.raw(kMagic, sizeof kMagic);
  wire.u32(kProtocolVersion);
  wire.text(token);
  wire.text(purpose);
  wire.flush();
  char magic[8];
  wire.readRaw(magic, sizeof magic, "the handshake's answer");
  if (std::memcmp(magic, kMagic, sizeof magic) != 0) {
    throw RpcError(strCat(peer, " is not a kiln RPC server or tracker (bad handshake)"));
  }
  uint32_t version = wire.readU32("the handshake's answer");
  uint8_t answer = wire.readU8("the handshake's answer");
  std::string message = wire.readText("the handshake's answer", 4096);
  if (version != kProtocolVersion) {
    throw RpcError(strCat(peer, " speaks kiln RPC protocol ", version, "; this client speaks ",
                          kProtocolVersion));
  }
  if (answer == kBusy) throw ServerBusy(strCat(peer, " is busy: ", message));
  if (answer != kAccepted) throw RpcError(strCat(peer, " refused the connection: ", message));
  return message;
}

}  // namespace kiln::runtime::rpc
