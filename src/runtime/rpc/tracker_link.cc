// The server's side of a tracker registration.
#include "tracker_link.h"

#include <algorithm>

#include "handshake.h"
#include "json_message.h"
#include "kiln/runtime/rpc/tracker_messages.h"

namespace kiln::runtime::rpc {
namespace {

// Registering runs in the server's accept loop: a tracker that is down or silent delays it at
// most this long per attempt, and attempts thin out while it stays away.
constexpr Millis kConnectTimeout{500}, kAnswerTimeout{1000};
constexpr Millis kFirstRetry{1000}, kLastRetry{8000};

}  // namespace

TrackerLink::TrackerLink(const ServerOptions& options, int port) : options_(options), port_(port) {
  if (!options.tracker.empty()) tracker_ = parseHostPort(options.tracker, "--tracker");
}

void TrackerLink::keepUp() {
  if (!tracker_ || retired_) return;
  if (socket_.valid()) {
    // After the registration the tracker speaks only to say a newer registration of this
    // address replaced this one; anything else readable is its going away.
    if (!socket_.waitReadable(Millis(0))) return;
    try {
      if (readJson(*wire_, "a tracker's notice").contains("replaced")) {
        options_.log(strCat("the tracker at ", tracker_->host, ":", tracker_->port,
                            " gave this server's address to a newer registration; this server "
                            "no longer registers (two servers claim one address?)"));
        retired_ = true;
        socket_.close();
        return;
      }
    } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): it went away; see below
    }
    drop("the tracker closed the connection");
    return;
  }
  auto now = std::chrono::steady_clock::now();
  if (now - lastTry_ < retry_) return;
  lastTry_ = now;
  try {
    registerNow();
  } catch (const std::exception& e) {
    drop(e.what());
  }
}

void TrackerLink::registerNow() {
  socket_ = Socket::connect(tracker_->host, tracker_->port, kConnectTimeout);
  socket_.keepAlive();  // a tracker that vanished shows as a closed connection
  wire_ = std::make_unique<Wire>(socket_, kAnswerTimeout);
  sayHello(*wire_, options_.token, "register");
  sendJson(*wire_, toJson(Registration{options_.key, options_.host, port_, busy_}));
  Json answer = readJson(*wire_, "the tracker's answer");
  if (answer.contains("error")) {  // the registration itself is wrong: retrying cannot help
    options_.log(strCat("the tracker at ", tracker_->host, ":", tracker_->port,
                        " refused this server's registration: ", answer.at("error").asString()));
    retired_ = true;
    socket_.close();
    wire_.reset();
    return;
  }
  bool replaced = answer.at("replaced").asBool();
  failing_ = false;
  retry_ = kFirstRetry;
  options_.log(strCat("registered with the tracker at ", tracker_->host, ":", tracker_->port,
                      " as key '", options_.key, "'",
                      replaced ? " (it replaced an earlier registration of this address)" : ""));
}

void TrackerLink::report(bool busy) {
  busy_ = busy;
  if (!socket_.valid()) return;
  try {
    Json event;
    event["busy"] = busy;
    sendJson(*wire_, event);
  } catch (const std::exception& e) {
    drop(e.what());
  }
}

void TrackerLink::drop(const std::string& why) {
  socket_.close();
  wire_.reset();
  if (!failing_) {
    options_.log(strCat("tracker ", tracker_->host, ":", tracker_->port, ": ", why,
                        "; registering again until it answers"));
  } else {
    retry_ = std::min(retry_ * 2, kLastRetry);
  }
  failing_ = true;
}

}  // namespace kiln::runtime::rpc
