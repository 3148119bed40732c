// The ssh launcher. start() asks the board for its architecture, makes a folder there and copies
// the server built for it, with the runtime library, by scp. Each session starts its own server
// on the board's loopback (never reachable from the network) with --max-sessions 1 and
// --stop-on-input-end, and reaches it through `ssh -W`, whose standard input and output are one
// end of a socket pair: the session's connection is the tunnel. Closing the session ends both ssh
// processes, and with them the server; stop() removes the folder.
#include "ssh_launcher.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>

#include "kiln/runtime/host_cpu.h"
#include "kiln/support/error.h"
#include "process.h"
#include "server_program.h"

namespace kiln::remote {
namespace {

constexpr std::chrono::milliseconds kCommandTimeout{60000};

std::string trimmed(const std::string& s) {
  size_t end = s.find_last_not_of(" \t\r\n");
  return end == std::string::npos ? "" : s.substr(0, end + 1);
}

class SshLauncher : public Launcher {
 public:
  SshLauncher(std::string device, std::string destination, const std::string& port,
              LauncherOptions options)
      : device_(std::move(device)),
        destination_(std::move(destination)),
        options_(std::move(options)) {
    // ServerAlive*: a link that stalls is noticed in 45 s rather than TCP's quarter of an hour.
    for (const char* o : {"BatchMode=yes", "ConnectTimeout=10", "LogLevel=ERROR",
                          "ServerAliveInterval=15", "ServerAliveCountMax=3"}) {
      common_.insert(common_.end(), {"-o", o});
    }
    for (const std::string& o : options_.sshOptions) common_.insert(common_.end(), {"-o", o});
    ssh_ = {"ssh"};
    scp_ = {"scp", "-q"};
    if (!port.empty()) {
      ssh_.insert(ssh_.end(), {"-p", port});
      scp_.insert(scp_.end(), {"-P", port});
    }
    ssh_.insert(ssh_.end(), common_.begin(), common_.end());
    scp_.insert(scp_.end(), common_.begin(), common_.end());
  }
  ~SshLauncher() override { stop(); }

  std::string deviceName() const override { return device_; }
  std::string target() override {
    start();
    return target_;
  }

  void start() override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!folder_.empty()) return;
    std::string arch = trimmed(run({"uname", "-m"}));
    std::string server = options_.serverPath;
    if (server.empty() && arch == runtime::hostArch()) {
      server =
          findServer(options_.programDir, "kiln-rpc-server", "KILN_RPC_SERVER", "kiln-rpc-server");
    } else if (server.empty() && arch == "aarch64") {
      server = findServer(options_.programDir, "../aarch64/bin/kiln-rpc-server",
                          "KILN_RPC_SERVER_AARCH64", "kiln-rpc-server-aarch64");
    } else if (server.empty()) {
      throw Error(strCat("the board at ", destination_, " is ", arch,
                         "; this kiln has servers for ", runtime::hostArch(),
                         " and aarch64 (LauncherOptions::serverPath)"));
    }
    target_ = arch == runtime::hostArch() ? "" : strCat("llvm -mtriple=", arch, "-linux-gnu");
    std::vector<std::string> copy = scp_;
    copy.push_back(server);
    for (const std::string& lib : findRuntimeLibraries(server)) copy.push_back(lib);
    copy.insert(copy.end(), files_.begin(), files_.end());
    std::string folder = trimmed(run({"mktemp", "-d", "/tmp/kiln-device-XXXXXX"}));
    if (folder.rfind("/tmp/kiln-device-", 0) != 0) {
      throw Error(
          strCat("'mktemp' on ", destination_, " printed '", folder, "'; expected a folder"));
    }
    copy.push_back(strCat(destination_, ":", folder, "/"));
    try {
      Process(copy).finish(kCommandTimeout);
      std::string name = server.substr(server.find_last_of('/') + 1);
      if (name != "kiln-rpc-server") run({"mv", folder + "/" + name, folder + "/kiln-rpc-server"});
    } catch (...) {
      removeFolder(folder);  // started only once everything is in place
      throw;
    }
    folder_ = folder;
  }

  void stop() noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    processes_->endAll();
    if (folder_.empty()) return;
    removeFolder(folder_);
    folder_.clear();
  }

  std::unique_ptr<Session> createSession() override {
    start();
    std::vector<std::string> serve = ssh_;
    serve.insert(serve.end(),
                 {destination_, strCat("cd ", folder_, " && LD_LIBRARY_PATH=", folder_,
                                       " exec ./kiln-rpc-server --port 0 --max-sessions 1 "
                                       "--stop-on-input-end --quiet --workdir ",
                                       folder_, "/sessions")});
    auto server = processes_->add(std::make_shared<Process>(serve));
    std::shared_ptr<Process> forward;
    struct Abandon {  // a session that fails to start leaves no process behind
      ProcessSet& set;
      std::vector<std::shared_ptr<Process>> started;
      bool keep = false;
      ~Abandon() {
        for (auto& p : started) {
          if (!keep) set.end(p);
        }
      }
    } abandon{*processes_, {server}};
    int port = portOf(server->readLine(options_.startTimeout), server->command());
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
      throw Error("cannot make a socket pair for the ssh tunnel");
    }
    // Ours does not block (the session's deadlines rely on it); ssh's end is left as it is.
    ::fcntl(pair[0], F_SETFL, ::fcntl(pair[0], F_GETFL) | O_NONBLOCK);
    runtime::rpc::Socket socket(pair[0], strCat(destination_, " (port ", port, " through ssh)"));
    std::vector<std::string> tunnel = ssh_;
    tunnel.insert(tunnel.end(), {"-W", strCat("127.0.0.1:", port), destination_});
    try {
      forward = processes_->add(std::make_shared<Process>(tunnel, pair[1]));
    } catch (...) {
      ::close(pair[1]);
      throw;
    }
    ::close(pair[1]);
    abandon.started.push_back(forward);
    auto client = runtime::rpc::Client::open(std::move(socket), options_.client);
    abandon.keep = true;
    return std::make_unique<Session>(std::move(client), device_,
                                     ProcessSet::ender(processes_, {forward, server}));
  }

 private:
  // COMMAND run on the board; its output.
  std::string run(const std::vector<std::string>& command) {
    std::vector<std::string> argv = ssh_;
    argv.push_back(destination_);
    std::string line;
    for (const std::string& c : command) line += (line.empty() ? "" : " ") + c;
    argv.push_back(line);
    return Process(argv).finish(kCommandTimeout);
  }

  void removeFolder(const std::string& folder) noexcept {
    try {
      run({"rm", "-rf", folder});
    } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): the board is gone already
    }
  }

  std::string device_, destination_, target_, folder_;
  LauncherOptions options_;
  std::vector<std::string> common_, ssh_, scp_;
  std::mutex mutex_;  // the board folder's set-up
  std::shared_ptr<ProcessSet> processes_ = std::make_shared<ProcessSet>();  // servers, tunnels
};

}  // namespace

std::unique_ptr<Launcher> makeSshLauncher(const std::string& device,
                                          const LauncherOptions& options) {
  std::string rest = device.substr(4);
  size_t at = rest.find('@');
  size_t colon = rest.find(':', at == std::string::npos ? 0 : at);
  std::string destination = rest.substr(0, colon);
  std::string port = colon == std::string::npos ? "" : rest.substr(colon + 1);
  bool portOk =
      port.empty() || (port.find_first_not_of("0123456789") == std::string::npos &&
                       port.size() <= 5 && std::stoi(port) > 0 && std::stoi(port) < 65536);
  std::string host = destination.substr(at == std::string::npos ? 0 : at + 1);
  std::string user = at == std::string::npos ? "" : destination.substr(0, at);
  // The destination becomes an argument of ssh: one starting with '-' would be read as an option
  // (-oProxyCommand=... runs a command), so user and host are plain names only.
  auto plain = [](const std::string& s) {
    return s.find_first_not_of(
               "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"
               "[]:%") == std::string::npos &&
           (s.empty() || s.front() != '-');
  };
  if (host.empty() || !portOk || !plain(host) || !plain(user) ||
      (at != std::string::npos && user.empty())) {
    throw Error(strCat("device '", device,
                       "': expected ssh:[USER@]HOST[:PORT], USER and HOST plain names (letters, "
                       "digits, '.', '_', '-', not starting with '-')"));
  }
  return std::make_unique<SshLauncher>(device, destination, port, options);
}

}  // namespace kiln::remote
