// The tracker: pools RPC servers by key and hands a free one to each client that asks, by priority
// then in order of asking. Servers register with it (kiln rpc server --tracker --key) and report
// when their sessions start and end; a client asks for a session by key with a timeout and gets a
// clear error naming the key and its wait when none frees in time. See docs/rpc.md. The client's
// side (asking for a session, the status) is tracker_client.h, in libkiln_rpc; the tracker itself
// is a host tool (kiln_tracker).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "kiln/runtime/rpc/client.h"
#include "kiln/runtime/rpc/tracker_client.h"

namespace kiln::runtime::rpc {

struct TrackerOptions {
  std::string host = "127.0.0.1";  // anything but loopback requires a token
  int port = 9190;                 // 0: a free port, reported through onListening
  std::string token;               // the pool's shared secret ("" = none)
  Millis ioTimeout{10000};         // one message from a peer
  // How long a server handed to a client stays reserved for it before the tracker offers it
  // again (the client connects within connectTimeout).
  Millis reserveTimeout{15000};
  std::function<void(int port)> onListening;    // called once, before serving
  std::function<void(const std::string&)> log;  // one line per event (default: stderr)
};

class Tracker {
 public:
  // Throws kiln::Error when HOST is not loopback and no token is set, or when it cannot listen.
  explicit Tracker(TrackerOptions options);
  ~Tracker();
  int port() const;
  // Serves until stop() (from a signal handler or another thread); one thread per connection.
  void serve();
  void stop() { stopping_.store(true); }

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> stopping_{false};
};

}  // namespace kiln::runtime::rpc
