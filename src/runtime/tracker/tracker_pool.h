// The tracker's state, without the network: servers by key (free, reserved for a client, or
// serving a session) and the queue of clients waiting for one. Not thread-safe: the tracker holds
// its lock around every call.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "kiln/support/json.h"

namespace kiln::runtime::rpc {

class TrackerPool {
 public:
  using Clock = std::chrono::steady_clock;
  struct Address {
    std::string host;
    int port = 0;
  };

  explicit TrackerPool(std::chrono::milliseconds reserveTimeout) : reserve_(reserveTimeout) {}

  // Registers the server of connection CONN; a server already registered at the same address (a
  // restarted server whose old connection the tracker has not seen close, or two registrations
  // of one server) is replaced. Returns whether one was.
  bool addServer(uint64_t conn, const std::string& key, const Address& at, bool busy);
  void removeServer(uint64_t conn);
  bool hasServer(uint64_t conn) const { return servers_.count(conn) != 0; }
  // The server of CONN started (BUSY) or ended a session.
  void setBusy(uint64_t conn, bool busy);

  // Queues client request ID; match() grants it a server.
  void addRequest(uint64_t id, const std::string& key, int priority, const std::string& peer);
  // The server granted to request ID, if any; the request leaves the queue once granted.
  std::optional<Address> granted(uint64_t id) const;
  void removeRequest(uint64_t id);
  // Frees the reservation of the server at AT (its client could not be told).
  void release(const Address& at);

  // Frees expired reservations, then grants free servers to waiting requests: highest priority
  // first, equal priorities in order of asking; the server free longest first.
  void match(Clock::time_point now);

  // Why request ID (still waiting) has no server yet: what is registered with its key and how many
  // requests are ahead of it.
  std::string whyWaiting(uint64_t id) const;
  Json status(Clock::time_point now) const;

 private:
  enum class State { kFree, kReserved, kBusy };
  struct Server {
    std::string key;
    Address at;
    State state = State::kFree;
    Clock::time_point since, reservedUntil;
  };
  struct Request {
    std::string key, peer;
    int priority = 0;
    uint64_t order = 0;
    Clock::time_point since;
    std::optional<Address> granted;
  };

  std::chrono::milliseconds reserve_;
  std::map<uint64_t, Server> servers_;
  std::map<uint64_t, Request> requests_;
  uint64_t order_ = 0;
  int64_t sessions_ = 0;
};

}  // namespace kiln::runtime::rpc
