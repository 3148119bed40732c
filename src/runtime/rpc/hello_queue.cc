// The server's waiting handshakes: read a few bytes at a time, exactly as many as the hello still
// needs, so the requests a client sends right after it stay in the socket for the session.
#include "hello_queue.h"

namespace kiln::runtime::rpc {

HelloQueue::HelloQueue(Millis timeout, size_t capacity, std::function<void(const std::string&)> log)
    : timeout_(timeout), capacity_(capacity), log_(std::move(log)) {}

void HelloQueue::add(Socket socket) {
  if (waiting_.size() >= capacity_) {
    log_(strCat("dropped ", waiting_.front().socket.peer(), ": ", capacity_,
                " connections are waiting to finish their handshake"));
    waiting_.pop_front();
  }
  waiting_.push_back({std::move(socket), "", Clock::now() + timeout_});
}

void HelloQueue::pollFds(std::vector<pollfd>& fds) const {
  for (const Waiting& w : waiting_) fds.push_back({w.socket.fd(), POLLIN, 0});
}

std::vector<HelloQueue::Arrived> HelloQueue::advance() {
  std::vector<Arrived> arrived;
  auto now = Clock::now();
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    try {
      HelloProgress progress = parseHello(it->bytes, it->socket.peer());
      while (!progress.hello) {
        size_t old = it->bytes.size();
        it->bytes.resize(old + progress.need);
        size_t got = it->socket.readAvailable(it->bytes.data() + old, progress.need, "a handshake");
        it->bytes.resize(old + got);
        if (got == 0) break;
        progress = parseHello(it->bytes, it->socket.peer());
      }
      if (progress.hello) {
        arrived.push_back({std::move(it->socket), std::move(*progress.hello)});
        it = waiting_.erase(it);
        continue;
      }
      if (now >= it->deadline) {
        throw RpcError(strCat(it->socket.peer(), " sent no complete handshake within ",
                              static_cast<double>(timeout_.count()) / 1000, " s (",
                              it->bytes.size(), " bytes)"));
      }
      ++it;
    } catch (const RpcError& e) {
      log_(strCat("dropped a connection: ", e.what()));
      it = waiting_.erase(it);
    }
  }
  return arrived;
}

}  // namespace kiln::runtime::rpc
