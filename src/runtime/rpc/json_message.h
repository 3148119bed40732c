// Tracker messages: one JSON object as text, after the handshake.
#pragma once

#include "kiln/runtime/rpc/wire.h"
#include "kiln/support/json.h"

namespace kiln::runtime::rpc {

inline void sendJson(Wire& wire, const Json& message) {
  wire.text(message.dump());
  wire.flush();
}

// Throws RpcError when the text is not a JSON object (a peer that broke the protocol).
inline Json readJson(Wire& wire, const char* what) {
  std::string text = wire.readText(what, 1 << 20);
  try {
    Json j = Json::parse(text);
    if (j.isObject()) return j;
  } catch (const Error&) {  // NOLINT(bugprone-empty-catch): reported below
  }
  throw RpcError(
      strCat("protocol error: ", what, " from ", wire.socket().peer(), " is not a JSON object"));
}

}  // namespace kiln::runtime::rpc
