// The RPC server: serves one session at a time, each in a fresh child process with its own folder
// under the work directory, which is removed when the session ends, however it ends. A client that
// disconnects, sends garbage or crashes the child costs only its own session.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/rpc/socket.h"

namespace kiln::runtime::rpc {

struct ServerOptions {
  std::string host = "127.0.0.1";  // anything but loopback requires a token
  int port = 0;                    // 0: a free port, reported through onListening
  std::string workdir;             // session folders go here ("" = $TMPDIR or /tmp)
  std::string token;               // shared secret every client must present ("" = none)
  std::string tracker;             // "HOST:PORT" of a tracker to register with ("" = none)
  std::string key;                 // the key it registers under (required with a tracker)
  Millis ioTimeout{60000};         // one read or write of a message
  // A connection's handshake must arrive within this; until it has, the connection holds no
  // session slot, and at most kMaxPendingHandshakes wait at once.
  Millis handshakeTimeout{10000};
  // The most one tensor or Bytes value a client may send or allocate; 0: this machine's memory,
  // at most kMaxTensorBytes.
  uint64_t maxTensorBytes = 0;
  Millis idleTimeout{3600000};  // a session with no request for this long is ended
  // Serve this many sessions, then return (0 = until stop()). For tests and one-shot launchers.
  int maxSessions = 0;
  // Stop when standard input reaches its end: a launcher that started the server over ssh holds
  // it, so the server goes when the launcher does, even if no session ever started.
  bool stopOnInputEnd = false;
  bool quiet = false;  // log failures only, not every session (launchers' servers)
  // Where loaded modules find the runtimes of their offloaded partitions (LoadOptions).
  std::vector<std::string> extensions;
  std::function<void(int port)> onListening;    // called once, before serving
  std::function<void(const std::string&)> log;  // one line per event (default: stderr)
};

// Connections whose handshake is still arriving, at most; a newer one drops the oldest.
inline constexpr size_t kMaxPendingHandshakes = 32;

class Server {
 public:
  // Throws kiln::Error when HOST is not loopback and no token is set, when a tracker is named
  // without a key (or a key without a tracker), or when it cannot listen.
  explicit Server(ServerOptions options);
  int port() const;
  // Serves sessions until stop() (from a signal handler or another thread) or maxSessions. It
  // forks a child per session, so call it from a process that runs no other threads: a lock
  // another thread holds at the fork would stay held in the child forever.
  void serve();
  void stop() { stopping_.store(true); }

 private:
  ServerOptions options_;
  class Impl;
  std::shared_ptr<Impl> impl_;
  std::atomic<bool> stopping_{false};
};

// The shared secret in PATH: its first line. Throws kiln::Error when the file cannot be read, is
// empty, or may be read by other users (it must be private: chmod 600).
std::string readTokenFile(const std::string& path);

// Serves one session on SOCKET in this process, handshake included, with its files in
// SESSION_DIR (created, and removed at the end). Exposed for tests and fuzzers; the server itself
// reads handshakes in its accept loop and forks a session only for an accepted one.
void serveSession(Socket socket, const std::string& sessionDir, const ServerOptions& options);

}  // namespace kiln::runtime::rpc
