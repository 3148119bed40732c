// The tracker's network side: one thread per connection. A server's registration connection stays
// open (its closing unregisters the server); a client's request waits, polling for the client
// going away, until the pool grants it a server or its timeout passes.
#include "kiln/runtime/rpc/tracker.h"

#include <sys/socket.h>

#include <condition_variable>
#include <iostream>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "../rpc/handshake.h"
#include "../rpc/json_message.h"
#include "kiln/runtime/artifact.h"
#include "kiln/runtime/rpc/tracker_messages.h"
#include "tracker_pool.h"

namespace kiln::runtime::rpc {
namespace {

using Clock = std::chrono::steady_clock;
constexpr Millis kPoll{100};
// Connections served at once; more are closed at once (a flood cannot exhaust threads).
constexpr int kMaxConnections = 512;

std::string hostOf(const std::string& peer) {
  std::string host = peer.substr(0, peer.rfind(':'));
  if (host.size() >= 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  return host;
}

// The address clients should use for a server that registered HOST from PEER: the peer's own
// address when the server listens on every interface, or names loopback from another machine.
std::string reachableHost(const std::string& host, const std::string& peer) {
  std::string from = hostOf(peer);
  bool any = host.empty() || host == "0.0.0.0" || host == "::";
  return any || (isLoopback(host) && !isLoopback(from)) ? from : host;
}

// A peer's message (WHAT) decoded by PARSE; a malformed one is answered {"error": why} before the
// connection ends.
template <typename Parse>
auto readMessage(Wire& wire, const char* what, Parse parse) {
  Json message = readJson(wire, what);
  try {
    return parse(message);
  } catch (const Error& e) {
    Json refusal;
    refusal["error"] = e.what();
    sendJson(wire, refusal);
    throw;
  }
}

}  // namespace

class Tracker::Impl {
 public:
  explicit Impl(const TrackerOptions& o)
      : options(o), listener(o.host, o.port), pool(o.reserveTimeout) {}

  // Serves one connection (its own thread) until it ends or the tracker stops.
  void serveConnection(Socket socket, const std::atomic<bool>& stopping);

  TrackerOptions options;
  Listener listener;
  std::mutex mutex;
  std::condition_variable changed, idle;
  TrackerPool pool;
  uint64_t nextId = 0;
  int live = 0;          // connection threads still running
  std::set<int> active;  // their sockets, shut down when the tracker stops

 private:
  void serveServer(Wire& wire, uint64_t conn, const std::atomic<bool>& stopping);
  void serveRequest(Wire& wire, uint64_t id, const std::atomic<bool>& stopping);
  // The request's answer, once granted or timed out; LOCK holds the mutex, released while waiting.
  Json awaitGrant(std::unique_lock<std::mutex>& lock, Wire& wire, uint64_t id,
                  const SessionAsk& request, const std::atomic<bool>& stopping);
};

void Tracker::Impl::serveConnection(Socket socket, const std::atomic<bool>& stopping) {
  struct Active {  // listed while served, so that stopping interrupts its reads
    Impl& impl;
    int fd;
    Active(Impl& i, int f) : impl(i), fd(f) {
      std::lock_guard<std::mutex> lock(impl.mutex);
      impl.active.insert(fd);
    }
    ~Active() {
      std::lock_guard<std::mutex> lock(impl.mutex);
      impl.active.erase(fd);
    }
  } listed(*this, socket.fd());
  if (stopping.load()) return;
  Wire wire(socket, options.ioTimeout);
  try {
    ClientHello hello = readHello(wire);
    std::string refusal = refusalOf(hello, options.token, "|register|request|status|", "tracker");
    answerHello(wire, refusal.empty() ? kAccepted : kRefused,
                refusal.empty() ? producerVersion() : refusal);
    if (!refusal.empty()) return;
    uint64_t id = 0;
    {
      std::lock_guard<std::mutex> lock(mutex);
      id = ++nextId;
    }
    if (hello.purpose == "register") serveServer(wire, id, stopping);
    if (hello.purpose == "request") serveRequest(wire, id, stopping);
    if (hello.purpose == "status") {
      Json status;
      {
        std::lock_guard<std::mutex> lock(mutex);
        pool.match(Clock::now());  // expired reservations show as free
        status = pool.status(Clock::now());
      }
      sendJson(wire, status);  // a slow reader holds no lock
    }
  } catch (const std::exception& e) {
    options.log(strCat("connection from ", socket.peer(), " ended: ", e.what()));
  }
}

void Tracker::Impl::serveServer(Wire& wire, uint64_t conn, const std::atomic<bool>& stopping) {
  Registration reg = readMessage(wire, "a registration", parseRegistration);
  const std::string& key = reg.key;
  TrackerPool::Address at{reachableHost(reg.host, wire.socket().peer()), reg.port};
  bool busy = reg.busy;
  wire.socket().keepAlive();  // a board that loses power is dropped within about a minute
  struct Unregister {
    Impl& impl;
    uint64_t conn;
    ~Unregister() {
      {
        std::lock_guard<std::mutex> lock(impl.mutex);
        impl.pool.removeServer(conn);
      }
      impl.changed.notify_all();
    }
  } unregister{*this, conn};
  bool replaced = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    replaced = pool.addServer(conn, key, at, busy);
    pool.match(Clock::now());
  }
  changed.notify_all();
  Json answer;
  answer["replaced"] = replaced;
  sendJson(wire, answer);
  options.log(strCat("server ", at.host, ":", at.port, " registered with key '", key, "'",
                     replaced ? " (replacing an earlier registration of that address)" : ""));
  while (!stopping.load()) {
    bool registered = false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      registered = pool.hasServer(conn);
    }
    if (!registered) {  // a newer registration of the address replaced this one: say so
      Json notice;
      notice["replaced"] = true;
      sendJson(wire, notice);
      return;
    }
    if (!wire.socket().waitReadable(kPoll * 2)) continue;
    Json event;
    try {
      event = readJson(wire, "a server's event");
    } catch (const RpcError&) {
      options.log(strCat("server ", at.host, ":", at.port, " with key '", key, "' left"));
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      pool.setBusy(conn, parseBusyEvent(event));
      pool.match(Clock::now());
    }
    changed.notify_all();
  }
}

void Tracker::Impl::serveRequest(Wire& wire, uint64_t id, const std::atomic<bool>& stopping) {
  SessionAsk request = readMessage(wire, "a session request", parseSessionAsk);
  Json answer;
  {
    std::unique_lock<std::mutex> lock(mutex);
    pool.addRequest(id, request.key, request.priority, wire.socket().peer());
    struct Dequeue {
      TrackerPool& pool;
      uint64_t id;
      ~Dequeue() { pool.removeRequest(id); }
    } dequeue{pool, id};
    answer = awaitGrant(lock, wire, id, request, stopping);
  }
  try {
    sendJson(wire, answer);
  } catch (const RpcError&) {
    if (answer.contains("host")) {  // the client left: offer its server to the next one
      std::lock_guard<std::mutex> lock(mutex);
      pool.release({answer.at("host").asString(), static_cast<int>(answer.at("port").asInt())});
      pool.match(Clock::now());
    }
    changed.notify_all();
    throw;
  }
}

Json Tracker::Impl::awaitGrant(std::unique_lock<std::mutex>& lock, Wire& wire, uint64_t id,
                               const SessionAsk& request, const std::atomic<bool>& stopping) {
  auto start = Clock::now();
  auto deadline = start + request.timeout;
  Json answer;
  for (;;) {
    pool.match(Clock::now());
    if (auto at = pool.granted(id)) {
      answer["host"] = at->host;
      answer["port"] = at->port;
      return answer;
    }
    if (stopping.load()) {
      answer["error"] = "the tracker is shutting down";
      return answer;
    }
    if (Clock::now() >= deadline) {
      double waited = std::chrono::duration<double>(Clock::now() - start + request.waited).count();
      answer["error"] = strCat("no server with key '", request.key, "' became free within ", waited,
                               " s: ", pool.whyWaiting(id));
      return answer;
    }
    lock.unlock();
    bool gone = wire.socket().waitReadable(Millis(0));  // the client closed or broke protocol
    lock.lock();
    if (gone) throw RpcError(strCat(wire.socket().peer(), " stopped waiting for a session"));
    changed.wait_for(lock, kPoll);
  }
}

Tracker::Tracker(TrackerOptions options) {
  if (!isLoopback(options.host) && options.token.empty()) {
    throw Error(strCat("--host ", options.host,
                       " is not a loopback address: a tracker hands out servers that run any code "
                       "they are sent, so binding to another interface requires a shared secret "
                       "(--auth-token-file)"));
  }
  if (!options.log) options.log = [](const std::string& line) { std::cerr << line << "\n"; };
  impl_ = std::make_unique<Impl>(options);
}

Tracker::~Tracker() = default;

int Tracker::port() const { return impl_->listener.port(); }

void Tracker::serve() {
  if (impl_->options.onListening) impl_->options.onListening(port());
  while (!stopping_.load()) {
    Socket socket = impl_->listener.accept(Millis(200));
    if (!socket.valid()) continue;
    {
      std::lock_guard<std::mutex> lock(impl_->mutex);
      if (impl_->live >= kMaxConnections) {
        impl_->options.log(strCat("refused ", socket.peer(), ": ", kMaxConnections,
                                  " connections are open already"));
        continue;
      }
      ++impl_->live;
    }
    auto done = [this] {
      std::lock_guard<std::mutex> lock(impl_->mutex);
      if (--impl_->live == 0) impl_->idle.notify_all();
    };
    try {
      std::thread([this, done, s = std::move(socket)]() mutable {
        impl_->serveConnection(std::move(s), stopping_);
        done();
      }).detach();
    } catch (const std::system_error& e) {
      impl_->options.log(strCat("cannot serve a connection: ", e.what()));
      done();
    }
  }
  std::unique_lock<std::mutex> lock(impl_->mutex);
  for (int fd : impl_->active) ::shutdown(fd, SHUT_RDWR);  // reads in progress end now
  impl_->changed.notify_all();
  impl_->idle.wait(lock, [this] { return impl_->live == 0; });
}

}  // namespace kiln::runtime::rpc
