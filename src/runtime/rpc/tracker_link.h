// A server's registration with its tracker (ServerOptions::tracker): registers on start, reports
// each session's start and end, and registers again whenever the tracker comes back after going
// away (first after a second, then less often, up to every eight seconds). A server whose address
// a newer registration took stops registering, so two servers claiming one address do not evict
// each other forever. Used by the server's single-threaded accept loop.
#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include "kiln/runtime/rpc/server.h"
#include "kiln/runtime/rpc/tracker_client.h"
#include "kiln/runtime/rpc/wire.h"

namespace kiln::runtime::rpc {

class TrackerLink {
 public:
  // Inactive when OPTIONS names no tracker. PORT is the server's.
  TrackerLink(const ServerOptions& options, int port);
  // Registers when not registered (at most every two seconds); notices a tracker that went away.
  void keepUp();
  // A session started (BUSY) or ended.
  void report(bool busy);
  // In a session's child process: lets go of the connection without a word (the server's copy
  // stays open).
  void abandon() { socket_.close(); }

 private:
  void registerNow();
  void drop(const std::string& why);

  const ServerOptions& options_;
  std::optional<HostPort> tracker_;
  int port_;
  Socket socket_;
  std::unique_ptr<Wire> wire_;
  bool busy_ = false, failing_ = false;
  bool retired_ = false;  // another server took this address: stop registering
  Millis retry_{1000};
  std::chrono::steady_clock::time_point lastTry_{};
};

}  // namespace kiln::runtime::rpc
