// An RPC server or tracker in a process of its own, stopped by SIGTERM: a server forks per
// session, which a multi-threaded test process must not do, and a tracker in its own process can
// be stopped and started again like a real one.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

#include "kiln/runtime/rpc/server.h"
#include "kiln/runtime/rpc/tracker.h"

namespace kiln::runtime::rpc {

class ChildProcess {
 public:
  // Runs SERVE(report) in a child; REPORT hands the port it listens on back to the parent.
  explicit ChildProcess(const std::function<void(const std::function<void(int)>&)>& serve) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      try {
        serve([&](int port) {
          if (::write(fds[1], &port, sizeof port) != sizeof port) std::_Exit(2);
        });
      } catch (...) {
        std::_Exit(3);  // never back into the test runner: the parent sees no port and fails
      }
      std::_Exit(0);
    }
    ::close(fds[1]);
    EXPECT_EQ(::read(fds[0], &port_, sizeof port_), static_cast<ssize_t>(sizeof port_));
    ::close(fds[0]);
  }
  ~ChildProcess() { stop(); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // SIGTERM (or SIGNAL), then waits for it.
  void stop(int signal = SIGTERM) {
    if (pid_ <= 0) return;
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// SERVICE (Server or Tracker) built from OPTIONS in a child, serving until SIGTERM.
template <class Service, class Options>
class ServiceProcess : public ChildProcess {
 public:
  explicit ServiceProcess(Options options)
      : ChildProcess([options](const std::function<void(int)>& report) mutable {
          options.log = [](const std::string&) {};
          Service service(options);
          current = &service;
          ::signal(SIGTERM, [](int) { current->stop(); });
          report(service.port());
          service.serve();
        }) {}

 private:
  static inline Service* current = nullptr;  // the child's, for its signal handler
};

using ServerProcess = ServiceProcess<Server, ServerOptions>;
using TrackerProcess = ServiceProcess<Tracker, TrackerOptions>;

}  // namespace kiln::runtime::rpc
