// A tracker reads registrations, busy events and session requests from any peer: any JSON must
// decode into checked fields or a kiln::Error, and what decodes must be safe to pool and print.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kiln/runtime/rpc/tracker_messages.h"
#include "kiln/support/error.h"
#include "kiln/support/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln::runtime::rpc;
  kiln::Json message;
  try {
    message = kiln::Json::parse(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const kiln::Error&) {
    return 0;
  }
  try {
    Registration r = parseRegistration(message);
    // What decodes is what a server would send: it decodes to the same again.
    Registration again = parseRegistration(toJson(r));
    if (again.key != r.key || again.host != r.host || again.port != r.port) __builtin_trap();
    if (!trackerKeyProblem(r.key).empty() || r.port < 1 || r.port > 65535) __builtin_trap();
  } catch (const kiln::Error&) {
  }
  try {
    SessionAsk a = parseSessionAsk(message);
    SessionAsk again = parseSessionAsk(toJson(a));
    if (again.key != a.key || again.priority != a.priority || again.timeout != a.timeout) {
      __builtin_trap();
    }
  } catch (const kiln::Error&) {
  }
  try {
    parseBusyEvent(message);
  } catch (const kiln::Error&) {
  }
  if (message.isString()) {
    // Logged text never carries a control character.
    for (char c : quotedForLog(message.asString())) {
      if (static_cast<unsigned char>(c) < 0x20) __builtin_trap();
    }
  }
  return 0;
}
