// Both sides of the handshake (layout in protocol.h).
#include "handshake.h"

#include <algorithm>
#include <cstring>

#include "kiln/runtime/rpc/tracker_messages.h"

namespace kiln::runtime::rpc {
namespace {

// Compares in time independent of where the strings differ.
bool sameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= a[i] ^ b[i % std::max<size_t>(b.size(), 1)];
  return diff == 0;
}

}  // namespace

HelloProgress parseHello(const std::string& bytes, const std::string& peer) {
  HelloProgress progress;
  size_t at = 0;
  // Whether N more bytes from AT have arrived; if not, PROGRESS says how many are missing.
  auto have = [&](uint64_t n) {
    if (bytes.size() - at >= n) return true;
    progress.need = static_cast<size_t>(n - (bytes.size() - at));
    return false;
  };
  auto leAt = [&](size_t pos, int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) {
      v |= uint64_t{static_cast<unsigned char>(bytes[pos + i])} << (8 * i);
    }
    return v;
  };
  size_t magicBytes = std::min(bytes.size(), sizeof kMagic);
  if (std::memcmp(bytes.data(), kMagic, magicBytes) != 0) {
    throw RpcError(strCat("protocol error: ", peer, " is not a kiln RPC client (bad handshake)"));
  }
  if (!have(sizeof kMagic + 4)) return progress;
  ClientHello hello;
  hello.version = static_cast<uint32_t>(leAt(sizeof kMagic, 4));
  at = sizeof kMagic + 4;
  for (std::string* text : {&hello.token, &hello.purpose}) {
    if (!have(8)) return progress;
    uint64_t size = leAt(at, 8);
    if (size > kMaxHelloText) {
      throw RpcError(strCat("protocol error: ", peer, " sent a handshake ",
                            text == &hello.token ? "token" : "purpose", " of ", size,
                            " bytes; at most ", kMaxHelloText, " are accepted"));
    }
    at += 8;
    if (!have(size)) return progress;
    text->assign(bytes, at, size);
    at += size;
  }
  progress.hello = std::move(hello);
  return progress;
}

ClientHello readHello(Wire& wire) {
  std::string bytes;
  for (;;) {
    HelloProgress progress = parseHello(bytes, wire.socket().peer());
    if (progress.hello) return *progress.hello;
    size_t old = bytes.size();
    bytes.resize(old + progress.need);
    wire.readRaw(bytes.data() + old, progress.need, "a handshake");
  }
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
  if (hello.purpose.find('|') != std::string::npos ||
      wanted.find(strCat("|", hello.purpose, "|")) == std::string::npos) {
    return strCat("this is a kiln RPC ", serves, "; it does not serve ",
                  quotedForLog(hello.purpose),
                  hello.purpose == "session"
                      ? " (ask it for a session by key: kiln run --rpc-tracker HOST:PORT "
                        "--rpc-key KEY)"
                      : " (that is what a tracker serves)");
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
  std::string message = wire.readText("the handshake's answer", kMaxHelloText);
  if (version != kProtocolVersion) {
    throw RpcError(strCat(peer, " speaks kiln RPC protocol ", version, "; this client speaks ",
                          kProtocolVersion));
  }
  if (answer == kBusy) throw ServerBusy(strCat(peer, " is busy: ", message));
  if (answer != kAccepted) throw RpcError(strCat(peer, " refused the connection: ", message));
  return message;
}

}  // namespace kiln::runtime::rpc
