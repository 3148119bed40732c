// Launchers whose device runs kiln-rpc-server as a process on this machine: `local` (natively)
// and `qemu-aarch64` (under QEMU user-mode emulation with the aarch64 sysroot). Every session gets
// a fresh server process (--max-sessions 1) in the launcher's private folder.
#include <unistd.h>

#include <filesystem>
#include <mutex>

#include "kiln/remote/launcher.h"
#include "kiln/support/error.h"
#include "kiln/support/temp_path.h"
#include "process.h"
#include "server_program.h"
#include "ssh_launcher.h"

namespace kiln::remote {
namespace {

class ServerLauncher : public Launcher {
 public:
  // PREFIX runs the server program (empty natively; the emulator and its flags otherwise).
  ServerLauncher(std::string device, std::string target, std::vector<std::string> prefix,
                 LauncherOptions options)
      : device_(std::move(device)),
        target_(std::move(target)),
        prefix_(std::move(prefix)),
        options_(std::move(options)) {}
  ~ServerLauncher() override { stop(); }

  std::string deviceName() const override { return device_; }
  std::string target() override { return target_; }

  void start() override {
    std::lock_guard<std::mutex> lock(mutex_);
    startLocked();
  }

  void stop() noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    servers_->endAll();
    folder_.reset();
  }

  std::unique_ptr<Session> createSession() override {
    std::shared_ptr<Process> server;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      startLocked();
      std::vector<std::string> argv = prefix_;
      for (const std::string& a :
           {options_.serverPath, std::string("--port"), std::string("0"),
            std::string("--max-sessions"), std::string("1"), std::string("--stop-on-input-end"),
            std::string("--quiet"), std::string("--workdir"), folder_->path() + "/sessions"}) {
        argv.push_back(a);
      }
      server = servers_->add(std::make_shared<Process>(argv));
    }
    int port = portOf(server->readLine(options_.startTimeout), server->command());
    auto client = runtime::rpc::Client::connect("127.0.0.1", port, options_.client);
    return std::make_unique<Session>(std::move(client), device_,
                                     ProcessSet::ender(servers_, {server}));
  }

 private:
  void startLocked() {
    if (folder_) return;
    folder_ = std::make_unique<TempPath>(TempPath::folder("kiln-device-" + device_));
    for (const std::string& f : files_) {
      std::filesystem::copy_file(
          f, folder_->path() + "/" + std::filesystem::path(f).filename().string(),
          std::filesystem::copy_options::overwrite_existing);
    }
  }

  std::string device_, target_;
  std::vector<std::string> prefix_;
  LauncherOptions options_;
  std::mutex mutex_;  // the device folder's set-up
  std::shared_ptr<ProcessSet> servers_ = std::make_shared<ProcessSet>();
  std::unique_ptr<TempPath> folder_;
};

}  // namespace

std::unique_ptr<Launcher> makeLauncher(const std::string& device, const LauncherOptions& options) {
  LauncherOptions o = options;
  if (device == "local") {
    if (o.serverPath.empty())
      o.serverPath =
          findServer(o.programDir, "kiln-rpc-server", "KILN_RPC_SERVER", "kiln-rpc-server");
    return std::make_unique<ServerLauncher>("local", "", std::vector<std::string>{}, o);
  }
  if (device == "qemu-aarch64") {
    if (o.serverPath.empty()) {
      o.serverPath = findServer(o.programDir, "../aarch64/bin/kiln-rpc-server",
                                "KILN_RPC_SERVER_AARCH64", "kiln-rpc-server-aarch64");
    }
    return std::make_unique<ServerLauncher>("qemu-aarch64", "llvm -mtriple=aarch64-linux-gnu",
                                            std::vector<std::string>{o.qemuPath, "-L", o.sysroot},
                                            o);
  }
  if (device.rfind("ssh:", 0) == 0) return makeSshLauncher(device, o);
  throw Error(strCat("unknown device '", device,
                     "'; this kiln knows: local, qemu-aarch64, ssh:USER@HOST[:PORT]"));
}

}  // namespace kiln::remote
