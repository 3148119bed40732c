// A child process with its standard output on a pipe: what launchers start servers with.
#pragma once

#include <sys/types.h>

#include <chrono>
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
  pid_t pid_ = -1;
  int out_ = -1, in_ = -1, status_ = 0;
  std::string command_, buffered_;
};

}  // namespace kiln::remote
