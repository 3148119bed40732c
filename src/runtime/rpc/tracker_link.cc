// The server's side of a tracker registration.
#include "tracker_link.h"

#include "handshake.h"
#include "json_message.h"

namespace kiln::runtime::rpc {
namespace {

constexpr Millis kRetry{2000};

}  // namespace

TrackerLink::TrackerLink(const ServerOptions& options, int port) : options_(options), port_(port) {
  if (!options.tracker.empty()) tracker_ = parseHostPort(options.tracker, "--tracker");
}

void TrackerLink::keepUp() {
  if (!tracker_) return;
  if (socket_.valid()) {
    // The tracker sends nothing after the registration: anything readable is its going away.
    if (socket_.waitReadable(Millis(0))) drop("the tracker closed the connection");
    return;
  }
  auto now = std::chrono::steady_clock::now();
  if (now - lastTry_ < kRetry) return;
  lastTry_ = now;
  try {
    registerNow();
  } catch (const std::exception& e) {
    drop(e.what());
  }
}

void TrackerLink::registerNow() {
  socket_ = Socket::connect(tracker_->host, tracker_->port, kRetry);
  wire_ = std::make_unique<Wire>(socket_, kRetry);
  sayHello(*wire_, options_.token, "register");
  Json reg;
  reg["key"] = options_.key;
  reg["host"] = options_.host;
  reg["port"] = port_;
  reg["busy"] = busy_;
  sendJson(*wire_, reg);
  bool replaced = readJson(*wire_, "the tracker's answer").at("replaced").asBool();
  failing_ = false;
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
                        "; registering again every ", kRetry.count() / 1000, " s"));
  }
  failing_ = true;
}

}  // namespace kiln::runtime::rpc
