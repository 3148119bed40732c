// TCP connections with deadlines, for the RPC server, its clients and the tracker. Every blocking
// operation waits at most its timeout and then fails with an RpcError saying what it waited for,
// from whom and how long; a peer that closes the connection is an RpcError too, never a signal
// (SIGPIPE is suppressed per call).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kiln/support/error.h"

namespace kiln::runtime::rpc {

// A failed or timed-out connection, or a peer that broke the protocol.
class RpcError : public Error {
 public:
  using Error::Error;
};

// A server that turned the connection away because it serves another session.
class ServerBusy : public RpcError {
 public:
  using RpcError::RpcError;
};

using Millis = std::chrono::milliseconds;

class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}
  Socket(Socket&& o) noexcept;
  Socket& operator=(Socket&& o) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  // Connects to HOST:PORT within TIMEOUT (name resolution included).
  static Socket connect(const std::string& host, int port, Millis timeout);

  bool valid() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  const std::string& peer() const { return peer_; }  // "127.0.0.1:5000", for messages
  void close();

  // Reads exactly SIZE bytes; WHAT names them in errors ("a reply to 'run'").
  void readExact(void* data, size_t size, Millis timeout, const char* what);
  void writeAll(const void* data, size_t size, Millis timeout, const char* what);
  // Reads what has arrived, at most SIZE bytes, without waiting: 0 when nothing has. Throws
  // RpcError when the peer closed the connection or it failed (WHAT names the bytes awaited).
  size_t readAvailable(void* data, size_t size, const char* what);
  // True when the peer has sent something (or closed) within TIMEOUT.
  bool waitReadable(Millis timeout);
  // Lets the kernel probe the connection when idle (after 30 s, every 10 s, 3 times), so a peer
  // that vanished without closing it (power lost, cable pulled) shows as a closed connection.
  void keepAlive();

 private:
  int fd_ = -1;
  std::string peer_;
};

class Listener {
 public:
  // Binds HOST:PORT (port 0: a free port the kernel picks) with SO_REUSEADDR, so a restarted
  // server never fails on a port in TIME_WAIT.
  Listener(const std::string& host, int port);
  Listener(Listener&&) noexcept = default;
  ~Listener();
  int port() const { return port_; }
  const std::string& host() const { return host_; }
  int fd() const { return socket_.fd(); }
  // The next connection, or an invalid Socket when none arrives within TIMEOUT.
  Socket accept(Millis timeout);

 private:
  Socket socket_;
  std::string host_;
  int port_ = 0;
};

// Whether HOST names the loopback interface (127.0.0.0/8, ::1, localhost).
bool isLoopback(const std::string& host);

}  // namespace kiln::runtime::rpc
