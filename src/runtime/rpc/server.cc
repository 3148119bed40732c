// The server's accept loop: handshakes read without blocking it, one session at a time, each in
// a forked child with its own folder; accepted clients that arrive meanwhile are told it is busy.
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
#include "hello_queue.h"
#include "kiln/runtime/rpc/protocol.h"
#include "kiln/runtime/rpc/tracker_messages.h"
#include "kiln/runtime/rpc/wire.h"
#include "kiln/support/file.h"
#include "session_handler.h"
#include "tracker_link.h"

namespace kiln::runtime::rpc {

class Server::Impl {
 public:
  explicit Impl(const ServerOptions& o) : listener(o.host, o.port) {}
  Listener listener;
};

namespace {

std::string defaultWorkdir() {
  const char* tmp = std::getenv("TMPDIR");
  return strCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/kiln-rpc-", ::getpid());
}

// Answers a handshake that will not become a session (refused, or busy), if the client listens.
void answerQuietly(Socket& socket, HelloAnswer answer, const std::string& message) {
  try {
    Wire wire(socket, Millis(2000));
    answerHello(wire, answer, message);
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
  if (!options_.key.empty()) {
    if (std::string problem = trackerKeyProblem(options_.key); !problem.empty()) {
      throw Error(strCat("--key: ", problem));
    }
  }
  if (options_.workdir.empty()) options_.workdir = defaultWorkdir();
  if (!options_.log) options_.log = [](const std::string& line) { std::cerr << line << "\n"; };
  impl_ = std::make_shared<Impl>(options_);
  std::filesystem::create_directories(options_.workdir);
}

int Server::port() const { return impl_->listener.port(); }

namespace {

// How long a client whose handshake arrived while a session runs is held, in case that session
// is just ending, before it is told the server is busy.
constexpr Millis kHoldForNext{2000};

// The one session slot: the session process running now, if any, and how many were started.
struct SessionSlot {
  const ServerOptions& options;
  TrackerLink& link;
  HelloQueue& hellos;
  int started = 0;
  pid_t pid = -1;
  std::string dir{}, peer{};

  bool busy() const { return pid > 0; }
  bool mayStart() const { return options.maxSessions == 0 || started < options.maxSessions; }
  // Forks the session process for CLIENT, whose handshake was accepted. NEXT is a held client
  // the child must not keep open.
  void start(Socket client, Socket& next) {
    dir = strCat(options.workdir, "/session-", ++started);
    peer = client.peer();
    if (!options.quiet) options.log(strCat("session ", started, " from ", peer));
    link.report(true);
    pid_t child = ::fork();
    if (child < 0) {
      std::string why = strCat("cannot start a session process: ", std::strerror(errno));
      options.log(why);
      answerQuietly(client, kRefused, why);
      link.report(false);
      return;
    }
    if (child == 0) {
      // The session dies of SIGTERM/SIGINT; the server's own handlers (which stop its accept
      // loop) mean nothing here. Other clients' connections are the server's to answer or close.
      ::signal(SIGTERM, SIG_DFL);
      ::signal(SIGINT, SIG_DFL);
      link.abandon();
      hellos.closeAll();
      next.close();
      int status = 0;
      try {
        serveAcceptedSession(std::move(client), dir, options);
      } catch (const std::exception& e) {
        options.log(strCat("session from ", peer, " ended: ", e.what()));
        status = 1;
      }
      std::_Exit(status);
    }
    pid = child;
  }
  // Whether the session process has ended (waiting for it with WAIT); its folder goes with it.
  bool reap(bool wait) {
    int status = 0;
    if (::waitpid(pid, &status, wait ? 0 : WNOHANG) != pid) return false;
    if (WIFSIGNALED(status)) {
      options.log(strCat("session process from ", peer, " died of signal ", WTERMSIG(status)));
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);  // also when the child crashed
    pid = -1;
    return true;
  }
};

std::string busyMessage(int port) {
  return strCat("the server on port ", port,
                " serves another session; ask a tracker for a free one or retry");
}

}  // namespace

void Server::serve() {
  if (options_.onListening) options_.onListening(port());
  options_.port = port();
  TrackerLink link(options_, port());
  HelloQueue hellos(options_.handshakeTimeout, kMaxPendingHandshakes, options_.log);
  SessionSlot slot{options_, link, hellos};
  Socket next;  // accepted while a session ran: served next if that session ends in time
  auto nextUntil = std::chrono::steady_clock::now();
  while (!stopping_.load()) {
    link.keepUp();
    if (options_.stopOnInputEnd && inputEnded()) break;
    // A client held meanwhile is served next: the server is not free in between, or the tracker
    // could hand it to a queued client who would be turned away.
    if (slot.busy() && slot.reap(false) && !next.valid()) link.report(false);
    if (!slot.busy() && next.valid()) slot.start(std::move(next), next);
    if (!slot.busy() && !slot.mayStart()) break;

    std::vector<pollfd> fds{{impl_->listener.fd(), POLLIN, 0}};
    hellos.pollFds(fds);
    int waitMs = next.valid() ? 10 : 100;  // a held client waits on the session's end
    if (::poll(fds.data(), fds.size(), waitMs) < 0 && errno != EINTR) {
      throw Error(strCat("the server's poll failed: ", std::strerror(errno)));
    }
    if ((fds[0].revents & POLLIN) != 0) {
      Socket client = impl_->listener.accept(Millis(0));
      if (client.valid()) hellos.add(std::move(client));
    }
    for (HelloQueue::Arrived& a : hellos.advance()) {
      std::string refusal = refusalOf(a.hello, options_.token, kSessionPurposes, "server");
      if (!refusal.empty()) {
        answerQuietly(a.socket, kRefused, refusal);
      } else if (!slot.busy() && !next.valid() && slot.mayStart()) {
        slot.start(std::move(a.socket), next);
      } else if (!next.valid() && slot.mayStart()) {
        next = std::move(a.socket);
        nextUntil = std::chrono::steady_clock::now() + kHoldForNext;
      } else {
        answerQuietly(a.socket, kBusy, busyMessage(options_.port));
      }
    }
    if (next.valid() && std::chrono::steady_clock::now() >= nextUntil) {
      answerQuietly(next, kBusy, busyMessage(options_.port));
      next.close();
    }
  }
  if (slot.busy()) {
    ::kill(slot.pid, SIGTERM);
    slot.reap(true);
  }
}

}  // namespace kiln::runtime::rpc
