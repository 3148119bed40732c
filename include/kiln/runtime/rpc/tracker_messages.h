// The tracker's messages (docs/rpc.md), built and checked in one place: a server's registration
// and its busy events, a client's request for a session. Whatever a peer sends is checked here
// before the tracker keeps, logs or hands out any of it.
#pragma once

#include <string>

#include "kiln/runtime/rpc/socket.h"
#include "kiln/support/json.h"

namespace kiln::runtime::rpc {

// A key names a kind of device: 1 to 64 of the characters A-Z a-z 0-9 . _ - + : / @ =.
inline constexpr size_t kMaxKeyBytes = 64;
// Why KEY cannot be a tracker key, or "" when it can.
std::string trackerKeyProblem(const std::string& key);
// TEXT as it may appear in a log line or an error: quoted, control characters escaped, and cut
// after 64 bytes.
std::string quotedForLog(const std::string& text);

struct Registration {
  std::string key, host;  // host: as the server was told to listen ("" or 0.0.0.0: every interface)
  int port = 0;
  bool busy = false;
};
Json toJson(const Registration& r);
// Throws kiln::Error naming the field when a registration is malformed: a key trackerKeyProblem
// refuses, a host that is no host name or address, a port outside 1..65535, busy not a bool.
Registration parseRegistration(const Json& message);

// A server's event after registering: a session started (busy) or ended.
bool parseBusyEvent(const Json& message);

struct SessionAsk {
  std::string key;
  int priority = 0;  // -1000000..1000000
  Millis timeout{0}, waited{0};
};
Json toJson(const SessionAsk& a);
// Throws kiln::Error naming the field when a request is malformed.
SessionAsk parseSessionAsk(const Json& message);

}  // namespace kiln::runtime::rpc
