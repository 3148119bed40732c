// The tracker's bookkeeping: registrations, reservations, the priority queue and its reports.
#include "tracker_pool.h"

#include <algorithm>
#include <vector>

#include "kiln/support/error.h"

namespace kiln::runtime::rpc {
namespace {

double secondsSince(TrackerPool::Clock::time_point t, TrackerPool::Clock::time_point now) {
  return std::chrono::duration<double>(now - t).count();
}

}  // namespace

bool TrackerPool::addServer(uint64_t conn, const std::string& key, const Address& at, bool busy) {
  bool replaced = false;
  for (auto it = servers_.begin(); it != servers_.end();) {
    if (it->second.at.host == at.host && it->second.at.port == at.port) {
      it = servers_.erase(it);
      replaced = true;
    } else {
      ++it;
    }
  }
  Server& s = servers_[conn];
  s.key = key;
  s.at = at;
  s.state = busy ? State::kBusy : State::kFree;
  s.since = Clock::now();
  return replaced;
}

void TrackerPool::removeServer(uint64_t conn) { servers_.erase(conn); }

void TrackerPool::setBusy(uint64_t conn, bool busy) {
  auto it = servers_.find(conn);
  if (it == servers_.end()) return;
  if (busy) ++sessions_;
  it->second.state = busy ? State::kBusy : State::kFree;
  it->second.since = Clock::now();
}

void TrackerPool::addRequest(uint64_t id, const std::string& key, int priority,
                             const std::string& peer) {
  Request& r = requests_[id];
  r.key = key;
  r.peer = peer;
  r.priority = priority;
  r.order = ++order_;
  r.since = Clock::now();
}

std::optional<TrackerPool::Address> TrackerPool::granted(uint64_t id) const {
  auto it = requests_.find(id);
  return it == requests_.end() ? std::nullopt : it->second.granted;
}

void TrackerPool::removeRequest(uint64_t id) { requests_.erase(id); }

void TrackerPool::release(const Address& at) {
  for (auto& [conn, s] : servers_) {
    if (s.at.host == at.host && s.at.port == at.port && s.state == State::kReserved) {
      s.state = State::kFree;
    }
  }
}

void TrackerPool::match(Clock::time_point now) {
  for (auto& [conn, s] : servers_) {
    if (s.state == State::kReserved && now >= s.reservedUntil) s.state = State::kFree;
  }
  std::vector<Request*> waiting;
  for (auto& [id, r] : requests_) {
    if (!r.granted) waiting.push_back(&r);
  }
  std::sort(waiting.begin(), waiting.end(), [](const Request* a, const Request* b) {
    return a->priority != b->priority ? a->priority > b->priority : a->order < b->order;
  });
  for (Request* r : waiting) {
    Server* best = nullptr;
    for (auto& [conn, s] : servers_) {
      if (s.key == r->key && s.state == State::kFree &&
          (best == nullptr || s.since < best->since)) {
        best = &s;
      }
    }
    if (best == nullptr) continue;
    best->state = State::kReserved;
    best->since = now;
    best->reservedUntil = now + reserve_;
    r->granted = best->at;
  }
}

std::string TrackerPool::whyWaiting(uint64_t id) const {
  const Request& r = requests_.at(id);
  int registered = 0, busy = 0, reserved = 0;
  std::vector<std::string> keys;
  for (const auto& [conn, s] : servers_) {
    if (std::find(keys.begin(), keys.end(), s.key) == keys.end()) keys.push_back(s.key);
    if (s.key != r.key) continue;
    ++registered;
    if (s.state == State::kBusy) ++busy;
    if (s.state == State::kReserved) ++reserved;
  }
  int ahead = 0;
  for (const auto& [other, q] : requests_) {
    bool before = q.priority != r.priority ? q.priority > r.priority : q.order < r.order;
    ahead += (other != id && q.key == r.key && !q.granted && before) ? 1 : 0;
  }
  if (registered == 0) {
    std::string known;
    for (const std::string& k : keys) known += (known.empty() ? "'" : ", '") + k + "'";
    return strCat("no server is registered with key '", r.key,
                  "' (registered keys: ", known.empty() ? "none" : known, ")");
  }
  return strCat(registered, " server(s) with key '", r.key, "', ", busy, " serving sessions and ",
                reserved, " reserved for other clients; ", ahead, " request(s) ahead in the queue");
}

Json TrackerPool::status(Clock::time_point now) const {
  static const char* names[] = {"free", "reserved", "busy"};
  Json servers = Json(Json::Array{});
  for (const auto& [conn, s] : servers_) {
    Json e;
    e["key"] = s.key;
    e["address"] = strCat(s.at.host, ":", s.at.port);
    e["state"] = names[static_cast<int>(s.state)];
    e["since_s"] = secondsSince(s.since, now);
    servers.push(std::move(e));
  }
  std::vector<const Request*> waiting;
  for (const auto& [id, r] : requests_) {
    if (!r.granted) waiting.push_back(&r);
  }
  std::sort(waiting.begin(), waiting.end(), [](const Request* a, const Request* b) {
    return a->priority != b->priority ? a->priority > b->priority : a->order < b->order;
  });
  Json queue = Json(Json::Array{});
  for (const Request* r : waiting) {
    Json e;
    e["key"] = r->key;
    e["priority"] = r->priority;
    e["waited_s"] = secondsSince(r->since, now);
    e["peer"] = r->peer;
    queue.push(std::move(e));
  }
  Json out;
  out["servers"] = std::move(servers);
  out["queue"] = std::move(queue);
  out["sessions_served"] = sessions_;
  return out;
}

}  // namespace kiln::runtime::rpc
