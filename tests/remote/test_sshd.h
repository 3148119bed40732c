// An sshd of its own for the ssh device: OpenSSH's server started on a free loopback port with a
// throwaway host key and a throwaway client key, in a scratch folder removed with it. It lets the
// ssh launcher be tested against a real sshd, scp (over its sftp subsystem) and ssh -W included.
#pragma once

#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "../../src/remote/process.h"
#include "kiln/runtime/rpc/socket.h"
#include "kiln/support/error.h"
#include "kiln/support/temp_path.h"

namespace kiln::test {

inline constexpr const char* kSshd = "/usr/sbin/sshd";

class TestSshd {
 public:
  static bool available() {
    return ::access(kSshd, X_OK) == 0 && ::access("/usr/bin/ssh", X_OK) == 0;
  }

  TestSshd() : dir_(TempPath::folder("kiln-test-sshd")) {
    std::string d = dir_.path();
    for (const char* key : {"host_key", "client_key"}) {
      remote::Process({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", d + "/" + key})
          .finish(std::chrono::milliseconds(30000));
    }
    std::filesystem::copy_file(d + "/client_key.pub", d + "/authorized_keys");
    std::error_code ec;
    std::filesystem::create_directories("/run/sshd", ec);  // its privilege separation folder
    {
      runtime::rpc::Listener probe("127.0.0.1", 0);  // a free port, released for sshd
      port_ = probe.port();
    }
    std::ofstream(d + "/sshd_config")
        << "Port " << port_ << "\nListenAddress 127.0.0.1\nHostKey " << d << "/host_key\n"
        << "AuthorizedKeysFile " << d << "/authorized_keys\nPidFile " << d << "/sshd.pid\n"
        << "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
        << "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nAllowTcpForwarding yes\n"
        << "LogLevel ERROR\nSubsystem sftp /usr/lib/openssh/sftp-server\n";
    sshd_ = std::make_unique<remote::Process>(
        std::vector<std::string>{kSshd, "-D", "-e", "-f", d + "/sshd_config"});
    for (int i = 0; i < 200; ++i) {  // until it accepts connections
      try {
        runtime::rpc::Socket::connect("127.0.0.1", port_, std::chrono::milliseconds(200));
        return;
      } catch (const Error&) {
        if (!sshd_->running()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    throw Error(strCat("the test sshd on port ", port_, " did not start (its log is above)"));
  }

  // "ssh:USER@127.0.0.1:PORT" for this process's user.
  std::string device() const {
    const passwd* pw = ::getpwuid(::getuid());
    return strCat("ssh:", pw != nullptr ? pw->pw_name : "root", "@127.0.0.1:", port_);
  }
  // The ssh options that log in with the throwaway key and trust the throwaway host key.
  std::vector<std::string> sshOptions() const {
    return {"IdentityFile=" + dir_.path() + "/client_key", "StrictHostKeyChecking=no",
            "UserKnownHostsFile=/dev/null", "IdentitiesOnly=yes"};
  }

 private:
  TempPath dir_;
  int port_ = 0;
  std::unique_ptr<remote::Process> sshd_;
};

}  // namespace kiln::test
