// The tracker's messages: every field a peer sends is checked for type and range here, so the
// pool never holds an unusable address and no log line carries a peer's control characters.
#include "kiln/runtime/rpc/tracker_messages.h"

#include <algorithm>
#include <cstring>

namespace kiln::runtime::rpc {
namespace {

constexpr int64_t kMaxPriority = 1000000;
constexpr int64_t kMaxWaitMs = int64_t{7} * 24 * 3600 * 1000;  // a week

bool keyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::strchr("._-+:/@=", c) != nullptr;
}

// A host name or a numeric address (IPv6 possibly in brackets), or "" for every interface.
bool plausibleHost(const std::string& host) {
  if (host.size() > 253) return false;
  return std::all_of(host.begin(), host.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::strchr(".-:[]%_", c) != nullptr;
  });
}

const Json& field(const Json& message, const char* name, const char* what) {
  if (!message.isObject() || !message.contains(name)) {
    throw Error(strCat(what, " has no '", name, "' field"));
  }
  return message.at(name);
}

int64_t intField(const Json& message, const char* name, const char* what, int64_t lo, int64_t hi) {
  const Json& v = field(message, name, what);
  if (!v.isInt() || v.asInt() < lo || v.asInt() > hi) {
    throw Error(strCat(what, "'s '", name, "' is ", quotedForLog(v.dump()),
                       "; expected a whole number from ", lo, " to ", hi));
  }
  return v.asInt();
}

bool boolField(const Json& message, const char* name, const char* what) {
  const Json& v = field(message, name, what);
  if (!v.isBool()) {
    throw Error(strCat(what, "'s '", name, "' is ", quotedForLog(v.dump()), "; expected a bool"));
  }
  return v.asBool();
}

std::string keyField(const Json& message, const char* what) {
  const Json& v = field(message, "key", what);
  if (!v.isString()) throw Error(strCat(what, "'s key is not a string"));
  if (std::string problem = trackerKeyProblem(v.asString()); !problem.empty()) {
    throw Error(strCat(what, ": ", problem));
  }
  return v.asString();
}

}  // namespace

std::string quotedForLog(const std::string& text) {
  if (text.size() <= 64) return Json(text).dump();
  return Json(text.substr(0, 64)).dump() + strCat("... (", text.size(), " bytes)");
}

std::string trackerKeyProblem(const std::string& key) {
  if (key.empty()) return "the key is empty";
  if (key.size() > kMaxKeyBytes || !std::all_of(key.begin(), key.end(), keyChar)) {
    return strCat("the key ", quotedForLog(key), " is not 1 to ", kMaxKeyBytes,
                  " of the characters A-Z a-z 0-9 . _ - + : / @ =");
  }
  return "";
}

Json toJson(const Registration& r) {
  Json j;
  j["key"] = r.key;
  j["host"] = r.host;
  j["port"] = r.port;
  j["busy"] = r.busy;
  return j;
}

Registration parseRegistration(const Json& message) {
  const char* what = "a registration";
  Registration r;
  r.key = keyField(message, what);
  const Json& host = field(message, "host", what);
  if (!host.isString() || !plausibleHost(host.asString())) {
    throw Error(strCat("a registration's host ", quotedForLog(host.dump()),
                       " is not a host name or address"));
  }
  r.host = host.asString();
  r.port = static_cast<int>(intField(message, "port", what, 1, 65535));
  r.busy = boolField(message, "busy", what);
  return r;
}

bool parseBusyEvent(const Json& message) { return boolField(message, "busy", "a server's event"); }

Json toJson(const SessionAsk& a) {
  Json j;
  j["key"] = a.key;
  j["priority"] = a.priority;
  j["timeout_ms"] = static_cast<int64_t>(a.timeout.count());
  j["waited_ms"] = static_cast<int64_t>(a.waited.count());
  return j;
}

SessionAsk parseSessionAsk(const Json& message) {
  const char* what = "a session request";
  SessionAsk a;
  a.key = keyField(message, what);
  a.priority = static_cast<int>(intField(message, "priority", what, -kMaxPriority, kMaxPriority));
  a.timeout = Millis(intField(message, "timeout_ms", what, 0, kMaxWaitMs));
  a.waited = Millis(intField(message, "waited_ms", what, 0, kMaxWaitMs));
  return a;
}

}  // namespace kiln::runtime::rpc
