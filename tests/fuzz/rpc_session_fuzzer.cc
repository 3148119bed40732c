// A server runs requests from clients it does not control: after a valid handshake, any bytes
// (every op, every length field, truncated and oversized frames) must end in replies or a closed
// session, never a crash, a hang or an allocation out of proportion to what was sent.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>

#include "kiln/runtime/rpc/protocol.h"
#include "kiln/runtime/rpc/server.h"
#include "kiln/support/error.h"

namespace {

// The handshake of a client asking for a session, which the fuzzer's bytes follow.
std::string hello() {
  std::string h(kiln::runtime::rpc::kMagic, sizeof kiln::runtime::rpc::kMagic);
  auto le = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) h += static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  le(kiln::runtime::rpc::kProtocolVersion, 4);
  le(0, 8);  // no token
  le(7, 8);
  h += "session";
  return h;
}

void writeAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w <= 0) return;  // the session ended early: the rest is not read
    p += w;
    n -= static_cast<size_t>(w);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string kDir =
      (std::filesystem::temp_directory_path() / ("kiln-rpc-fuzz-" + std::to_string(::getpid())))
          .string();
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return 0;
  // The client: its handshake and the input, then the end of what it sends; it reads every reply.
  std::thread client([&] {
    std::string h = hello();
    writeAll(fds[0], h.data(), h.size());
    writeAll(fds[0], reinterpret_cast<const char*>(data), size);
    ::shutdown(fds[0], SHUT_WR);
    char buf[4096];
    while (::read(fds[0], buf, sizeof buf) > 0) {
    }
    ::close(fds[0]);
  });
  kiln::runtime::rpc::ServerOptions options;
  options.ioTimeout = kiln::runtime::rpc::Millis(2000);
  options.idleTimeout = kiln::runtime::rpc::Millis(2000);
  options.maxTensorBytes = uint64_t{64} << 20;  // within the fuzzer's memory limit
  options.log = [](const std::string&) {};
  try {
    kiln::runtime::rpc::serveSession(kiln::runtime::rpc::Socket(fds[1], "fuzz"), kDir + "/session",
                                     options);
  } catch (const kiln::Error&) {
  }
  client.join();
  return 0;
}
