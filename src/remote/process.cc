// Child processes through posix_spawn (no shell, safe with threads).
#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "kiln/support/error.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX leaves it undeclared

namespace kiln::remote {

Process::Process(const std::vector<std::string>& argv, int stdioSocket) {
  KILN_CHECK(!argv.empty(), "a process needs a command");
  for (const std::string& a : argv) command_ += (command_.empty() ? "" : " ") + a;
  int fds[2] = {-1, -1}, ins[2] = {-1, -1};
  if (stdioSocket < 0 && (::pipe2(fds, O_CLOEXEC) != 0 || ::pipe2(ins, O_CLOEXEC) != 0)) {
    for (int fd : {fds[0], fds[1]}) {
      if (fd >= 0) ::close(fd);
    }
    throw Error(strCat("cannot start '", command_, "': pipe failed"));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, stdioSocket >= 0 ? stdioSocket : fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, stdioSocket >= 0 ? stdioSocket : ins[0], 0);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int rc = ::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  for (int fd : {fds[1], ins[0]}) {
    if (fd >= 0) ::close(fd);
  }
  out_ = fds[0];
  in_ = ins[1];
  if (rc != 0) {
    pid_ = -1;
    terminate();  // closes the pipes
    throw Error(strCat("cannot start '", command_, "': ", std::strerror(rc)));
  }
}

Process::Process(Process&& o) noexcept
    : pid_(o.pid_),
      out_(o.out_),
      in_(o.in_),
      status_(o.status_),
      command_(std::move(o.command_)),
      buffered_(std::move(o.buffered_)) {
  o.pid_ = -1;
  o.out_ = -1;
  o.in_ = -1;
}

Process::~Process() { terminate(); }

std::string Process::readLine(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    size_t nl = buffered_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return line;
    }
    Read r = readSome(deadline);
    if (r == Read::kTimeout) {
      throw Error(strCat("'", command_, "' printed no line within ",
                         static_cast<double>(timeout.count()) / 1000, " s"));
    }
    if (r == Read::kEnd) {
      throw Error(strCat("'", command_, "' exited before printing the expected line",
                         buffered_.empty() ? "" : strCat(" (it printed '", buffered_, "')")));
    }
  }
}

Process::Read Process::readSome(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{out_, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) == 0) {
      return Read::kTimeout;
    }
    char buf[4096];
    ssize_t n = ::read(out_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Read::kEnd;
    buffered_.append(buf, static_cast<size_t>(n));
    return Read::kData;
  }
}

bool Process::waitExit(std::chrono::milliseconds timeout) noexcept {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
      if (r == pid_) status_ = status;
      pid_ = -1;
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool Process::running() { return pid_ > 0 && !waitExit(std::chrono::milliseconds(0)); }

void Process::terminate(std::chrono::milliseconds grace) noexcept {
  if (in_ >= 0) ::close(in_);  // end of its input first: a remote command may end by itself
  in_ = -1;
  if (pid_ > 0 && !waitExit(grace)) {
    ::kill(pid_, SIGTERM);
    if (!waitExit(std::chrono::milliseconds(2000))) {
      ::kill(pid_, SIGKILL);
      waitExit(std::chrono::milliseconds(5000));
    }
  }
  for (int* fd : {&out_, &in_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

std::string Process::finish(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  if (in_ >= 0) ::close(in_);  // nothing to read: a command that reads its input ends
  in_ = -1;
  for (Read r = Read::kData; r != Read::kEnd;) {
    r = readSome(deadline);
    if (r == Read::kTimeout) {
      terminate();
      throw Error(strCat("'", command_, "' did not finish within ",
                         static_cast<double>(timeout.count()) / 1000, " s"));
    }
  }
  std::string output = std::move(buffered_);
  buffered_.clear();
  if (!waitExit(std::max(std::chrono::milliseconds(0),
                         std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline - std::chrono::steady_clock::now())))) {
    terminate();
    throw Error(strCat("'", command_, "' did not exit within ",
                       static_cast<double>(timeout.count()) / 1000, " s"));
  }
  terminate();
  if (!WIFEXITED(status_) || WEXITSTATUS(status_) != 0) {
    throw Error(strCat("'", command_, "' failed (",
                       WIFEXITED(status_) ? strCat("exit status ", WEXITSTATUS(status_))
                                          : strCat("signal ", WTERMSIG(status_)),
                       "; its own message, if any, is above)"));
  }
  return output;
}

std::shared_ptr<Process> ProcessSet::add(std::shared_ptr<Process> p) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_.push_back(p);
  return p;
}

void ProcessSet::end(const std::shared_ptr<Process>& p, std::chrono::milliseconds grace) noexcept {
  p->terminate(grace);
  std::lock_guard<std::mutex> lock(mutex_);
  running_.erase(std::remove(running_.begin(), running_.end(), p), running_.end());
}

void ProcessSet::endAll() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& p : running_) p->terminate();
  running_.clear();
}

std::function<void()> ProcessSet::ender(std::shared_ptr<ProcessSet> set,
                                        std::vector<std::weak_ptr<Process>> processes) {
  return [set = std::move(set), processes = std::move(processes)] {
    for (const auto& weak : processes) {
      // A session's server exits by itself after its session: give it a moment first.
      if (auto p = weak.lock()) set->end(p, std::chrono::milliseconds(2000));
    }
  };
}

}  // namespace kiln::remote
