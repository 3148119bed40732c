// A child process with its standard output on a pipe: what launchers start servers with.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::remote {

class Process {
 public:
  // Starts ARGV[0] (a path, or a name looked up in PATH) with ARGV; its standard output is read
  // through readLine, its standard input is a pipe this object holds (closed by terminate(), so a
  // remote command sees its end), its standard error is inherited. With STDIO_SOCKET, its
  // standard input and output are that socket instead (ssh -W: the process is the connection).
  // Throws kiln::Error when it cannot start.
  explicit Process(const std::vector<std::string>& argv, int stdioSocket = -1);
  Process(Process&& o) noexcept;
  Process& operator=(Process&&) = delete;
  Process(const Process&) = delete;
  ~Process();  // terminate()

  // The next line of its output (without the newline), waiting at most TIMEOUT; throws
  // kiln::Error naming the command when it exits or stays silent.
  std::string readLine(std::chrono::milliseconds timeout);
  // Reads its output to the end and waits for it to exit, within TIMEOUT; returns the output.
  // Throws kiln::Error naming the command when it fails or takes longer.
  std::string finish(std::chrono::milliseconds timeout);
  // Waits up to GRACE for it to exit, then SIGTERM, then SIGKILL. Idempotent.
  void terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(0)) noexcept;
  bool running();
  pid_t pid() const { return pid_; }
  const std::string& command() const { return command_; }

 private:
  bool waitExit(std::chrono::milliseconds timeout) noexcept;
  // Appends what its output has by DEADLINE to buffered_.
  enum class Read { kData, kEnd, kTimeout };
  Read readSome(std::chrono::steady_clock::time_point deadline);
  pid_t pid_ = -1;
  int out_ = -1, in_ = -1, status_ = 0;
  std::string command_, buffered_;
};

// The processes a launcher started and has not ended yet, shared with its sessions' close
// callbacks (a session may outlive its launcher). Thread-safe.
class ProcessSet {
 public:
  std::shared_ptr<Process> add(std::shared_ptr<Process> p);
  // Terminates P (waiting GRACE for it to exit by itself first) and forgets it.
  void end(const std::shared_ptr<Process>& p,
           std::chrono::milliseconds grace = std::chrono::milliseconds(0)) noexcept;
  void endAll() noexcept;
  // A callback that ends PROCESSES of SET, if they are still running, when a session closes.
  static std::function<void()> ender(std::shared_ptr<ProcessSet> set,
                                     std::vector<std::weak_ptr<Process>> processes);

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<Process>> running_;
};

}  // namespace kiln::remote
