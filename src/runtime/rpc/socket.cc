// POSIX sockets with poll()-based deadlines.
#include "kiln/runtime/rpc/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kiln::runtime::rpc {
namespace {

using Clock = std::chrono::steady_clock;

std::string seconds(Millis t) { return strCat(static_cast<double>(t.count()) / 1000.0, " s"); }

// Waits for EVENTS on FD until DEADLINE; false on timeout.
bool waitFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
    if (left < 0) left = 0;
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, INT32_MAX)));
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) throw RpcError(strCat("poll failed: ", std::strerror(errno)));
  }
}

std::string addressText(const sockaddr* a) {
  char host[NI_MAXHOST] = "?", port[NI_MAXSERV] = "?";
  socklen_t len = a->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  ::getnameinfo(a, len, host, sizeof host, port, sizeof port, NI_NUMERICHOST | NI_NUMERICSERV);
  return a->sa_family == AF_INET6 ? strCat("[", host, "]:", port) : strCat(host, ":", port);
}

void setNoDelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

struct AddrInfo {
  addrinfo* list = nullptr;
  ~AddrInfo() {
    if (list != nullptr) ::freeaddrinfo(list);
  }
};

AddrInfo resolve(const std::string& host, int port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  AddrInfo info;
  int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &info.list);
  if (rc != 0) {
    throw RpcError(strCat("cannot resolve host '", host, "': ", ::gai_strerror(rc)));
  }
  return info;
}

}  // namespace

Socket::Socket(Socket&& o) noexcept : fd_(o.fd_), peer_(std::move(o.peer_)) { o.fd_ = -1; }

Socket& Socket::operator=(Socket&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    peer_ = std::move(o.peer_);
    o.fd_ = -1;
  }
  return *this;
}

Socket::~Socket() { close(); }

void Socket::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Socket Socket::connect(const std::string& host, int port, Millis timeout) {
  auto deadline = Clock::now() + timeout;
  AddrInfo info = resolve(host, port, false);
  std::string lastError = "no address";
  for (addrinfo* a = info.list; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    Socket s(fd, addressText(a->ai_addr));
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        lastError = std::strerror(errno);
        continue;
      }
      if (!waitFor(fd, POLLOUT, deadline)) {
        throw RpcError(
            strCat("connecting to ", host, ":", port, " timed out after ", seconds(timeout)));
      }
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        lastError = std::strerror(err);
        continue;
      }
    }
    setNoDelay(fd);
    return s;
  }
  throw RpcError(strCat("cannot connect to ", host, ":", port, ": ", lastError));
}

void Socket::readExact(void* data, size_t size, Millis timeout, const char* what) {
  auto deadline = Clock::now() + timeout;
  auto* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < size) {
    if (!waitFor(fd_, POLLIN, deadline)) {
      throw RpcError(strCat("timed out after ", seconds(timeout), " waiting for ", what, " from ",
                            peer_, " (", done, " of ", size, " bytes received)"));
    }
    ssize_t n = ::recv(fd_, p + done, size - done, 0);
    if (n == 0) {
      throw RpcError(strCat("connection closed by ", peer_, " while reading ", what, " (", done,
                            " of ", size, " bytes received)"));
    }
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      throw RpcError(strCat("reading ", what, " from ", peer_, " failed: ", std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
}

void Socket::writeAll(const void* data, size_t size, Millis timeout, const char* what) {
  auto deadline = Clock::now() + timeout;
  const auto* p = static_cast<const char*>(data);
  size_t done = 0;
  while (done < size) {
    if (!waitFor(fd_, POLLOUT, deadline)) {
      throw RpcError(strCat("timed out after ", seconds(timeout), " sending ", what, " to ", peer_,
                            " (", done, " of ", size, " bytes sent)"));
    }
    ssize_t n = ::send(fd_, p + done, size - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      throw RpcError(strCat("sending ", what, " to ", peer_, " failed: ", std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
}

size_t Socket::readAvailable(void* data, size_t size, const char* what) {
  for (;;) {
    ssize_t n = ::recv(fd_, data, size, MSG_DONTWAIT);
    if (n > 0 || size == 0) return n > 0 ? static_cast<size_t>(n) : 0;
    if (n == 0) throw RpcError(strCat("connection closed by ", peer_, " while sending ", what));
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    if (errno != EINTR) {
      throw RpcError(strCat("reading ", what, " from ", peer_, " failed: ", std::strerror(errno)));
    }
  }
}

bool Socket::waitReadable(Millis timeout) { return waitFor(fd_, POLLIN, Clock::now() + timeout); }

void Socket::keepAlive() {
  int on = 1, idle = 30, interval = 10, count = 3;
  ::setsockopt(fd_, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  ::setsockopt(fd_, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd_, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd_, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

Listener::Listener(const std::string& host, int port) : host_(host) {
  AddrInfo info = resolve(host, port, true);
  std::string lastError = "no address";
  for (addrinfo* a = info.list; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    Socket s(fd, addressText(a->ai_addr));
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 64) != 0) {
      lastError = std::strerror(errno);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    socket_ = std::move(s);
    return;
  }
  throw RpcError(strCat("cannot listen on ", host, ":", port, ": ", lastError));
}

Listener::~Listener() = default;

Socket Listener::accept(Millis timeout) {
  if (!socket_.waitReadable(timeout)) return Socket();
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  int fd = ::accept4(socket_.fd(), reinterpret_cast<sockaddr*>(&peer), &len,
                     SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) return Socket();  // the client gave up meanwhile; the caller loops
  setNoDelay(fd);
  return Socket(fd, addressText(reinterpret_cast<sockaddr*>(&peer)));
}

bool isLoopback(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr a{};
  return ::inet_pton(AF_INET, host.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

}  // namespace kiln::runtime::rpc
