// Connections whose handshake is still arriving, read without ever blocking the server's accept
// loop: a client that connects and sends nothing holds no session slot and delays nobody, and is
// dropped when its handshake deadline passes.
#pragma once

#include <poll.h>

#include <chrono>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "handshake.h"
#include "kiln/runtime/rpc/socket.h"

namespace kiln::runtime::rpc {

class HelloQueue {
 public:
  using Clock = std::chrono::steady_clock;
  struct Arrived {
    Socket socket;
    ClientHello hello;
  };

  // Each connection's handshake must arrive within TIMEOUT; at most CAPACITY wait at once (a
  // newer connection drops the oldest). LOG gets one line per dropped connection.
  HelloQueue(Millis timeout, size_t capacity, std::function<void(const std::string&)> log);

  void add(Socket socket);
  // Appends a poll entry for each waiting connection.
  void pollFds(std::vector<pollfd>& fds) const;
  // Reads what has arrived on every waiting connection and returns those whose handshake is now
  // complete; drops those that broke the protocol, closed, or are past their deadline.
  std::vector<Arrived> advance();
  size_t size() const { return waiting_.size(); }
  // Closes every waiting connection (a forked session process, whose they are not).
  void closeAll() { waiting_.clear(); }

 private:
  struct Waiting {
    Socket socket;
    std::string bytes;
    Clock::time_point deadline;
  };
  Millis timeout_;
  size_t capacity_;
  std::function<void(const std::string&)> log_;
  std::deque<Waiting> waiting_;
};

}  // namespace kiln::runtime::rpc
