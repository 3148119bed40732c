// A launcher prepares a device and starts and stops its RPC servers, and does nothing else;
// sessions (session.h) run code on it. Every session gets a fresh server process, so a test that
// crashes or hangs its server cannot affect the next one. stop() (and the destructor) stops every
// server the launcher started, even when a test failed.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "kiln/remote/session.h"

namespace kiln::remote {

struct LauncherOptions {
  // The server program, built for the device. local: kiln-rpc-server beside the running
  // executable (or in programDir), else $KILN_RPC_SERVER, else from PATH. qemu-aarch64: the
  // cross-built ../aarch64/bin/kiln-rpc-server beside it, else $KILN_RPC_SERVER_AARCH64, else
  // kiln-rpc-server-aarch64 from PATH.
  std::string serverPath;
  // The folder searched first for the server programs, in place of the running executable's
  // (the Python package, which runs inside python3, names its own bin/).
  std::string programDir;
  std::string qemuPath = "qemu-aarch64";  // qemu-aarch64: the emulator (Debian's qemu-user)
  std::string sysroot = "/usr/aarch64-linux-gnu";  // qemu-aarch64: its -L (the aarch64 libraries)
  // ssh: options for ssh and scp, each passed as -o KEY=VALUE (IdentityFile=..., ...).
  std::vector<std::string> sshOptions;
  runtime::rpc::ClientOptions client;
  std::chrono::milliseconds startTimeout{20000};  // a server printing its port
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual std::string deviceName() const = 0;  // "local", "qemu-aarch64", "ssh:USER@HOST"
  // The kiln compile --target that builds code for the device ("" = this machine's CPU). An ssh
  // launcher asks its device, so it starts first.
  virtual std::string target() = 0;
  // Prepares the device (folders, files); idempotent. createSession() calls it when needed.
  virtual void start() = 0;
  // Stops every server this launcher started and removes its device folder; idempotent.
  virtual void stop() noexcept = 0;
  // A session on a fresh server process.
  virtual std::unique_ptr<Session> createSession() = 0;
  // Files the device needs next to the server (copied by start()).
  void addFile(const std::string& localPath) { files_.push_back(localPath); }

 protected:
  std::vector<std::string> files_;
};

// The launcher for DEVICE: "local" (a fresh kiln-rpc-server process on this machine per session),
// "qemu-aarch64" (the same, the cross-built server run by qemu-aarch64 -L SYSROOT: an emulated
// aarch64 Linux board), or "ssh:[USER@]HOST[:PORT]" (a Linux board reached over ssh: start()
// copies the server built for its architecture and the runtime with scp into a fresh folder
// there, every session starts a server on the board's loopback and reaches it through an ssh
// tunnel, stop() removes the folder).
// Throws kiln::Error listing the devices it knows for any other name.
std::unique_ptr<Launcher> makeLauncher(const std::string& device,
                                       const LauncherOptions& options = {});

}  // namespace kiln::remote
