// The server's accept loop: one session at a time, each in a forked child with its own folder;
// connections that arrive meanwhile are told the server is busy.
#include "kiln/runtime/rpc/server.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>

#include "handshake.h"
#include "kiln/runtime/rpc/protocol.h"
#include "kiln/runtime/rpc/wire.h"
#include "kiln/support/file.h"
#include "tracker_link.h"

namespace kiln::runtime::rpc {

class Server::Impl {
 public:
  explicit Impl(const ServerOptions& o) : listener(o.host, o.port) {}
  Listener listener;
  int sessions = 0;
};

namespace {

std::string defaultWorkdir() {
  const char* tmp = std::getenv("TMPDIR");
  return strCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/kiln-rpc-", ::getpid());
}

// Tells a client that connected while a session runs why it is turned away.
void refuseBusy(Socket socket, const ServerOptions& options) {
  try {
    Wire wire(socket, Millis(2000));
    readHello(wire);
    answerHello(wire, kBusy,
                strCat("the server on port ", options.port,
                       " serves another session; ask a tracker for a free one or retry"));
  } catch (const std::exception&) {
    // The client went away: nothing to tell.
  }
}

// Whether standard input has reached its end (what it carries otherwise is discarded).
bool inputEnded() {
  pollfd p{0, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  char buf[256];
  return ::read(0, buf, sizeof buf) <= 0;
}

}  // namespace

std::string readTokenFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw Error(strCat("auth token file '", path, "': ", std::strerror(errno)));
  }
  if ((st.st_mode & 077) != 0) {
    throw Error(strCat("auth token file '", path,
                       "' may be read by other users; make it private (chmod 600)"));
  }
  std::string text = readTextFile(path);
  std::string token = text.substr(0, text.find('\n'));
  if (token.empty()) throw Error(strCat("auth token file '", path, "' is empty"));
  return token;
}

Server::Server(ServerOptions options) : options_(std::move(options)) {
  if (!isLoopback(options_.host) && options_.token.empty()) {
    throw Error(strCat("--host ", options_.host,
                       " is not a loopback address: a server runs any code it is sent, so "
                       "binding to another interface requires a shared secret "
                       "(--auth-token-file)"));
  }
  if (options_.tracker.empty() != options_.key.empty()) {
    throw Error(options_.tracker.empty()
                    ? strCat("--key '", options_.key,
                             "' without --tracker: a key names the server "
                             "to a tracker")
                    : strCat("--tracker ", options_.tracker,
                             " without --key: the tracker pools servers by key"));
  }
  if (!options_.tracker.empty()) parseHostPort(options_.tracker, "--tracker");
  if (options_.workdir.empty()) options_.workdir = defaultWorkdir();
  if (!options_.log) options_.log = [](const std::string& line) { std::cerr << line << "\n"; };
  impl_ = std::make_shared<Impl>(options_);
  std::filesystem::create_directories(options_.workdir);
}

int Server::port() const { return impl_->listener.port(); }

namespace {

// Waits for the session process CHILD; a connection that arrives meanwhile is held up to two
// seconds in case the session is just ending (then it is returned, to be served next), and turned
// away as busy otherwise. Returns the child's wait status.
int awaitSession(pid_t child, Listener& listener, const ServerOptions& options,
                 const std::atomic<bool>& stopping, Socket& next, TrackerLink& link) {
  int status = 0;
  for (;;) {
    if (::waitpid(child, &status, WNOHANG) == child) return status;
    link.keepUp();
    if (stopping.load() || (options.stopOnInputEnd && inputEnded())) {
      ::kill(child, SIGTERM);
      ::waitpid(child, &status, 0);
      return status;
    }
    Socket other = listener.accept(Millis(100));
    if (!other.valid()) continue;
    if (next.valid()) {
      refuseBusy(std::move(other), options);
      continue;
    }
    for (int i = 0; i < 200; ++i) {
      if (::waitpid(child, &status, WNOHANG) == child) {
        next = std::move(other);
        return status;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    refuseBusy(std::move(other), options);
  }
}

}  // namespace

void Server::serve() {
  if (options_.onListening) options_.onListening(port());
  options_.port = port();
  TrackerLink link(options_, port());
  Socket next;
  while (!stopping_.load() &&
         (options_.maxSessions == 0 || impl_->sessions < options_.maxSessions)) {
    link.keepUp();
    if (options_.stopOnInputEnd && inputEnded()) break;
    Socket client;
    if (next.valid()) {
      client = std::move(next);
      next = Socket();
    } else {
      client = impl_->listener.accept(Millis(200));
    }
    if (!client.valid()) continue;
    std::string dir = strCat(options_.workdir, "/session-", ++impl_->sessions);
    std::string peer = client.peer();
    if (!options_.quiet) options_.log(strCat("session ", impl_->sessions, " from ", peer));
    link.report(true);
    pid_t child = ::fork();
    if (child < 0) {
      options_.log(strCat("cannot start a session process: ", std::strerror(errno)));
      link.report(false);
      continue;
    }
    if (child == 0) {
      // The session dies of SIGTERM/SIGINT; the server's own handlers (which stop its accept
      // loop) mean nothing here.
      ::signal(SIGTERM, SIG_DFL);
      ::signal(SIGINT, SIG_DFL);
      link.abandon();
      int status = 0;
      try {
        serveSession(std::move(client), dir, options_);
      } catch (const std::exception& e) {
        options_.log(strCat("session from ", peer, " ended: ", e.what()));
        status = 1;
      }
      std::_Exit(status);
    }
    client.close();
    int status = awaitSession(child, impl_->listener, options_, stopping_, next, link);
    if (WIFSIGNALED(status)) {
      options_.log(strCat("session process from ", peer, " died of signal ", WTERMSIG(status)));
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);  // also when the child crashed
    // A client held meanwhile is served next: the server is not free in between, or the tracker
    // could hand it to a queued client who would be turned away.
    if (!next.valid()) link.report(false);
  }
}

}  // namespace kiln::runtime::rpc
