// The tracker: pools RPC servers by key and hands a free one to each client that asks, by priority
// then in order of asking. Servers register with it (kiln rpc server --tracker --key) and report
// when their sessions start and end; a client asks for a session by key with a timeout and gets a
// clear error naming the key and its wait when none frees in time. See docs/rpc.md.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "kiln/runtime/rpc/client.h"
#include "kiln/support/json.h"

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

// "HOST:PORT" (as given to OPTION), or a kiln::Error saying what was expected.
struct HostPort {
  std::string host;
  int port = 0;
};
HostPort parseHostPort(const std::string& text, const std::string& option);

struct SessionRequest {
  std::string key;
  int priority = 0;       // higher is served first; equal priorities in order of asking
  Millis timeout{60000};  // waiting for a free server
  ClientOptions client;   // the session's options; its token is presented to the tracker too
};

// A session on a server with REQUEST.key, from the tracker at TRACKER. Throws RpcError naming the
// key and how long it waited when none frees within the timeout.
std::shared_ptr<Client> requestSession(const HostPort& tracker, const SessionRequest& request);

// The tracker's state: {"servers": [{key, address, state, since_s}], "queue": [{key, priority,
// waited_s, peer}], "sessions_served": N}.
Json trackerStatus(const HostPort& tracker, const std::string& token,
                   Millis timeout = Millis(10000));

}  // namespace kiln::runtime::rpc
