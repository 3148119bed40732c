// Device tests through launchers and sessions: one launcher per test suite, one session per test,
// parametrised over the devices, so one test body runs on every device this machine can launch.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
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

TEST_P(DeviceTest, ALoadedLibraryCannotBeSilentlyReplaced) {
  std::string dir = scratchDir();
  Mlp m = randomMlp(1, 8, 8, 2, 5);
  std::string graph = compileMlp(m, dir, "graph", launcher().target());
  std::string aot = compileMlp(m, dir, "aot", launcher().target());
  Module first = session().loadModule(session().upload(graph, "model.so"));
  session().upload(aot, "model.so");
  std::string e = errorOf([&] { session().loadModule("model.so"); });
  EXPECT_NE(e.find("'model.so' was replaced after this session loaded it"), std::string::npos) << e;
  // Under a name of their own, both load, and each is the library it was.
  EXPECT_EQ(session().getExecutorFromFactory(graph).typeKey(), std::string("graph_executor"));
  EXPECT_EQ(session().getExecutorFromFactory(aot).typeKey(), std::string("aot_executor"));
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

TEST(Launchers, AMissingServerProgramIsNamed) {
  remote::LauncherOptions options;
  options.serverPath = "/no/such/kiln-rpc-server";
  auto launcher = remote::makeLauncher("local", options);
  std::string e = errorOf([&] { launcher->createSession(); });
  EXPECT_NE(e.find("/no/such/kiln-rpc-server"), std::string::npos) << e;
}

}  // namespace
}  // namespace kiln::test
