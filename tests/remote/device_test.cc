// Device tests through launchers and sessions: one launcher per test suite, one session per test,
// parametrised over the devices, so one test body runs on every device this machine can launch.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "kiln/driver/compile.h"
#include "kiln/remote/launcher.h"
#include "kiln/runtime/host_cpu.h"
#include "kiln/support/error.h"
#include "model_builder.h"
#include "test_sshd.h"

namespace kiln::test {
namespace {

using runtime::Module;
using runtime::NDArray;

// The devices every test runs on: this machine, an emulated aarch64 board when the aarch64
// runtime was cross-built, and this machine reached over ssh when OpenSSH's server is installed.
std::vector<std::string> devices() {
  std::vector<std::string> all = {"local"};
#ifdef KILN_RPC_SERVER_AARCH64_BIN
  all.push_back("qemu-aarch64");
#endif
  if (TestSshd::available()) all.push_back("ssh");
  return all;
}

// The ssh device's sshd, started with the first launcher that needs it.
TestSshd& sshd() {
  static TestSshd server;
  return server;
}

// The launcher name of test parameter DEVICE ("ssh" is the test sshd's ssh:USER@HOST:PORT).
std::string deviceName(const std::string& device) {
  return device == "ssh" ? sshd().device() : device;
}

remote::LauncherOptions launcherOptions(const std::string& device) {
  remote::LauncherOptions options;
  options.serverPath = KILN_RPC_SERVER_BIN;
#ifdef KILN_RPC_SERVER_AARCH64_BIN
  if (device == "qemu-aarch64") options.serverPath = KILN_RPC_SERVER_AARCH64_BIN;
#endif
  if (device == "ssh") options.sshOptions = sshd().sshOptions();
  return options;
}

std::unique_ptr<remote::Launcher> makeLauncher(const std::string& device) {
  return remote::makeLauncher(deviceName(device), launcherOptions(device));
}

// Whether process PID ends within five seconds (a server over ssh ends after its tunnel).
bool ends(pid_t pid) {
  for (int i = 0; i < 250 && ::kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ::kill(pid, 0) != 0;
}

class DeviceTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    for (const std::string& device : devices()) {
      launchers()[device] = makeLauncher(device);
      launchers()[device]->start();
    }
  }
  static void TearDownTestSuite() { launchers().clear(); }  // stops every server
  void SetUp() override { session_ = launchers().at(GetParam())->createSession(); }
  void TearDown() override { session_.reset(); }

  static std::map<std::string, std::unique_ptr<remote::Launcher>>& launchers() {
    static std::map<std::string, std::unique_ptr<remote::Launcher>> all;
    return all;
  }
  remote::Session& session() { return *session_; }
  remote::Launcher& launcher() { return *launchers().at(GetParam()); }

 private:
  std::unique_ptr<remote::Session> session_;
};

// An MLP compiled for EXECUTOR and TARGET into DIR.
std::string compileMlp(const Mlp& m, const std::string& dir, const std::string& executor,
                       const std::string& target) {
  auto graph = buildMlp(m, "");
  driver::CompileOptions options;
  options.executor = executor;
  options.target = target;
  std::string path = strCat(dir, "/mlp_", executor, ".so");
  driver::compileGraph(*graph, path, options);
  return path;
}

TEST_P(DeviceTest, GraphAndAotExecutorsRunOverTheSession) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(2, 16, 32, 4, 7);
  std::vector<float> x = randomVector(static_cast<size_t>(m.batch * m.in), 3);
  for (const char* executor : {"graph", "aot"}) {
    Module exec =
        session().getExecutorFromFactory(compileMlp(m, dir, executor, launcher().target()));
    exec["set_input"](0, toArray(x, {m.batch, m.in}));
    exec["run"]();
    std::vector<float> got = toVector(exec["get_output"](0).asNDArray());
    EXPECT_LT(relativeError(got, referenceMlp(m, x)), 1e-5) << executor;
    std::vector<double> ms = session().timeEvaluator(exec, "run", {}, 3, 2);
    EXPECT_EQ(ms.size(), 3u);
  }
  Module aotLib = session().loadModule(
      session().upload(compileMlp(m, dir, "aot", launcher().target()), "aot.so"));
  std::string e = errorOf([&] { session().getGraphExecutor(aotLib); });
  EXPECT_NE(e.find("compiled for the aot executor, not the graph executor"), std::string::npos)
      << e;
  EXPECT_EQ(session().getAotExecutor(aotLib)["get_num_outputs"]().asInt(), 1);
}

TEST_P(DeviceTest, ALibraryUploadedAgainUnderItsPathLoadsAsTheNewOne) {
  std::string dir = scratchDir();
  Mlp m1 = randomMlp(1, 8, 8, 2, 5), m2 = randomMlp(1, 8, 8, 2, 6);
  std::filesystem::create_directories(dir + "/1");
  std::filesystem::create_directories(dir + "/2");
  std::vector<float> x = randomVector(static_cast<size_t>(m1.batch * m1.in), 3);
  auto outputOf = [&](const Module& lib) {
    Module exec = lib["default"](runtime::Device::cpu()).asModule();
    exec["set_input"](0, toArray(x, {m1.batch, m1.in}));
    exec["run"]();
    return toVector(exec["get_output"](0).asNDArray());
  };
  Module first = session().loadModule(
      session().upload(compileMlp(m1, dir + "/1", "graph", launcher().target()), "model.so"));
  session().upload(compileMlp(m2, dir + "/2", "graph", launcher().target()), "model.so");
  Module second = session().loadModule("model.so");
  // Each library computes its own model, the old one still loaded beside the new one.
  EXPECT_LT(relativeError(outputOf(second), referenceMlp(m2, x)), 1e-5);
  EXPECT_LT(relativeError(outputOf(first), referenceMlp(m1, x)), 1e-5);
  EXPECT_GT(relativeError(referenceMlp(m1, x), referenceMlp(m2, x)), 1e-2);
}

TEST_P(DeviceTest, TheDeviceIsTheOneLaunched) {
  Json info = session().info();
  EXPECT_EQ(session().deviceName(), launcher().deviceName());
  EXPECT_EQ(launcher().deviceName(), deviceName(GetParam()));
  EXPECT_EQ(info.at("arch").asString(),
            GetParam() == "qemu-aarch64" ? "aarch64" : runtime::hostArch());
}

TEST_P(DeviceTest, TensorsLiveOnTheDevice) {
  Module t = session().empty({3}, runtime::DataType::float32());
  NDArray host = toArray({1.0f, 2.0f, 3.0f}, {3});
  session().copyToDevice(t, host);
  EXPECT_EQ(toVector(session().copyFromDevice(t)), (std::vector<float>{1.0f, 2.0f, 3.0f}));
}

TEST_P(DeviceTest, EverySessionHasAFreshServerAndLeavesNoFiles) {
  auto other = launcher().createSession();
  Json a = session().info(), b = other->info();
  EXPECT_NE(a.at("server_pid").asInt(), b.at("server_pid").asInt());
  std::string dir = b.at("session_dir").asString();
  other->upload(KILN_RPC_SERVER_BIN, "copy");
  EXPECT_TRUE(std::filesystem::exists(dir + "/copy"));
  auto serverPid = static_cast<pid_t>(b.at("server_pid").asInt());
  other->close();
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_TRUE(ends(serverPid));  // the session's server process is gone too
}

TEST_P(DeviceTest, StoppingTheLauncherStopsItsServers) {
  auto own = makeLauncher(GetParam());
  auto s = own->createSession();
  auto serverPid = static_cast<pid_t>(s->info().at("server_pid").asInt());
  own->stop();
  EXPECT_TRUE(ends(serverPid));
  std::string e = errorOf([&] { s->info(); });
  EXPECT_FALSE(e.empty());
}

INSTANTIATE_TEST_SUITE_P(Devices, DeviceTest, ::testing::ValuesIn(devices()), [](const auto& info) {
  std::string name = info.param;  // test names allow no '-'
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

TEST(Launchers, UnknownDeviceListsTheKnownOnes) {
  std::string e = errorOf([] { remote::makeLauncher("fpga"); });
  EXPECT_NE(e.find("unknown device 'fpga'"), std::string::npos) << e;
  EXPECT_NE(e.find("local, qemu-aarch64, ssh:USER@HOST[:PORT]"), std::string::npos) << e;
}

TEST(Launchers, SshDestinationsThatSshWouldReadAsOptionsAreRefused) {
  for (const char* device :
       {"ssh:-oProxyCommand=touch /tmp/x", "ssh:-oProxyCommand=x@host", "ssh:user@-oProxyCommand=x",
        "ssh:@host", "ssh:host:0", "ssh:us er@host"}) {
    std::string e = errorOf([&] { remote::makeLauncher(device); });
    EXPECT_NE(e.find("expected ssh:[USER@]HOST[:PORT]"), std::string::npos) << device << ": " << e;
  }
  EXPECT_EQ(errorOf([] { remote::makeLauncher("ssh:pi@board-7.local:2222"); }), "");
}

// kiln-rpc-server's command line: a malformed value is a usage error (status 2), like kiln's.
TEST(Launchers, TheServerProgramsBadOptionValuesAreUsageErrors) {
  for (const char* args : {"--port abc", "--port 70000", "--max-sessions -1",
                           "--idle-timeout 99999999999999999999", "--frobnicate 1"}) {
    std::string command = strCat(KILN_RPC_SERVER_BIN, " ", args, " >/dev/null 2>&1");
    int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << args;
    EXPECT_EQ(WEXITSTATUS(status), 2) << args;
  }
}

TEST(Launchers, AMissingServerProgramIsNamed) {
  remote::LauncherOptions options;
  options.serverPath = "/no/such/kiln-rpc-server";
  auto launcher = remote::makeLauncher("local", options);
  std::string e = errorOf([&] { launcher->createSession(); });
  EXPECT_NE(e.find("/no/such/kiln-rpc-server"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::test
