// Models run over RPC: `kiln rpc server` in its own process, a client session that uploads a
// compiled library, creates its executor remotely and gets the same outputs as a local run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <set>
#include <thread>

#include "cli_harness.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/rpc/client.h"
#include "kiln/support/error.h"
#include "npz.h"
#include "test_sshd.h"

namespace kiln::test {
namespace {

using runtime::Module;
using runtime::NDArray;
using runtime::rpc::Client;

// `kiln ARGS...` in a child process (a server or a tracker); the port read from the first line it
// prints ("... listening on HOST:PORT"). SIGTERM stops it.
class KilnProcess {
 public:
  explicit KilnProcess(std::vector<std::string> args) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      std::vector<char*> argv = {const_cast<char*>(KILN_BIN)};
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(KILN_BIN, argv.data());
      std::_Exit(127);
    }
    ::close(fds[1]);
    std::string line;
    char c;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') line += c;
    out_ = ::fdopen(fds[0], "r");
    size_t colon = line.rfind(':');
    EXPECT_NE(colon, std::string::npos) << line;
    port_ = colon == std::string::npos ? 0 : std::stoi(line.substr(colon + 1));
  }
  ~KilnProcess() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    if (out_ != nullptr) std::fclose(out_);
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  FILE* out_ = nullptr;
};

class ServerProcess : public KilnProcess {
 public:
  explicit ServerProcess(const std::string& workdir, std::vector<std::string> more = {})
      : KilnProcess(withServerArgs(workdir, std::move(more))) {}

 private:
  static std::vector<std::string> withServerArgs(const std::string& workdir,
                                                 std::vector<std::string> more) {
    std::vector<std::string> args = {"rpc", "server", "--port", "0", "--workdir", workdir};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }
};

// The JSON object on the last line of OUTPUT.
Json lastLineJson(const std::string& output) {
  std::string text = output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return Json::parse(text.substr(text.rfind('\n') + 1));
}

std::set<std::string> keysOf(const Json& j) {
  std::set<std::string> keys;
  for (const auto& [k, v] : j.asObject()) keys.insert(k);
  return keys;
}

std::string compileMlp(const std::string& dir, const std::string& name, const char* executor) {
  std::string model = dir + "/" + name + ".onnx";
  runPythonScript(
      dir, name,
      strCat("import numpy as np, onnx\n"
             "from onnx import helper, numpy_helper, TensorProto\n"
             "r = np.random.default_rng(3)\n"
             "w = numpy_helper.from_array(r.standard_normal((8, 4), dtype=np.float32), 'w')\n"
             "g = helper.make_graph([helper.make_node('MatMul', ['x', 'w'], ['h']),\n"
             "                       helper.make_node('Relu', ['h'], ['y'])], 'mlp',\n"
             "    [helper.make_tensor_value_info('x', TensorProto.FLOAT, [2, 8])],\n"
             "    [helper.make_tensor_value_info('y', TensorProto.FLOAT, [2, 4])], [w])\n"
             "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), '",
             model, "')\n"));
  std::string so = dir + "/" + name + ".so";
  CommandResult r = runKiln(strCat("compile ", model, " -o ", so, " --executor ", executor));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return so;
}

NDArray runLocally(const std::string& so, const NDArray& x) {
  Module exec = runtime::loadModule(so)["default"](runtime::Device::cpu()).asModule();
  exec["set_input"]("x", x);
  exec["run"]();
  return exec["get_output"](0).asNDArray();
}

TEST(CliRpc, GraphAndAotModelsRunInARemoteSession) {
  std::string dir = scratchDir();
  ServerProcess server(dir + "/work");
  NDArray x = NDArray::empty({2, 8}, runtime::DataType::float32());
  for (int i = 0; i < 16; ++i) x.data<float>()[i] = static_cast<float>(i % 5) - 2.0f;
  for (const char* executor : {"graph", "aot"}) {
    std::string so = compileMlp(dir, strCat("mlp_", executor), executor);
    NDArray want = runLocally(so, x);
    auto session = Client::connect("127.0.0.1", server.port());
    session->upload(so, "lib/model.so");
    Module lib = session->loadModule("lib/model.so");
    Module exec = lib["default"](runtime::Device::cpu()).asModule();
    EXPECT_EQ(exec["get_num_inputs"]().asInt(), 1);
    // An input from this process, and the same input placed on the server first.
    exec["set_input"]("x", x);
    exec["run"]();
    NDArray got = exec["get_output"](0).asNDArray();
    ASSERT_EQ(got.shape(), want.shape());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.nbytes()), 0) << executor;
    Module remoteX = session->allocTensor({2, 8}, runtime::DataType::float32());
    session->copyToRemote(remoteX, x);
    exec["set_input"](0, remoteX);
    exec["run"]();
    EXPECT_EQ(std::memcmp(exec["get_output"](0).asNDArray().data(), want.data(), want.nbytes()), 0);
    Json times = session->timeEvaluator(exec, "run", {}, 3, 2);
    EXPECT_EQ(times.at("times_ms").size(), 3u);
    EXPECT_GT(times.at("times_ms")[0].asDouble(), 0.0);
    // Remote errors come back as errors naming what was wrong.
    std::string e;
    try {
      exec["set_input"]("no_such_input", x);
    } catch (const Error& err) {
      e = err.what();
    }
    EXPECT_NE(e.find("no_such_input"), std::string::npos) << e;
    session->close();
  }
}

// `kiln rpc server` lives long: a session that uploads another library under a path it loaded
// loads the new one (here a graph library, then an AOT one of the same model under one name).
TEST(CliRpc, ALibraryUploadedAgainUnderALoadedPathLoadsAsTheNewOne) {
  std::string dir = scratchDir();
  ServerProcess server(dir + "/work");
  std::string graph = compileMlp(dir, "mlp_graph", "graph"),
              aot = compileMlp(dir, "mlp_aot", "aot");
  auto session = Client::connect("127.0.0.1", server.port());
  session->upload(graph, "model.so");
  Module first = session->loadModule("model.so");
  session->upload(aot, "model.so");
  Module second = session->loadModule("model.so");
  EXPECT_STREQ(second["default"](runtime::Device::cpu()).asModule().typeKey(), "aot_executor");
  EXPECT_STREQ(first["default"](runtime::Device::cpu()).asModule().typeKey(), "graph_executor");
  session->close();
}

// The outputs of `kiln run` (fill-mode random, seed 0) at PLACE ("" = locally), and its output.
// With PROFILE, the model's per-node profile too (graph executor libraries).
std::pair<cli::NamedArrays, std::string> runAt(const std::string& so, const std::string& place,
                                               const std::string& out, bool profile = true) {
  CommandResult r = runKiln(strCat("run ", so, " ", place, " --outputs ", out,
                                   " --print-time --json --repeat 3", profile ? " --profile" : ""));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return {r.exitCode == 0 ? cli::readNpz(out) : cli::NamedArrays{}, r.output};
}

void expectSameRun(const std::pair<cli::NamedArrays, std::string>& local,
                   const std::pair<cli::NamedArrays, std::string>& remote, const std::string& what,
                   bool profile = true) {
  ASSERT_EQ(local.first.size(), remote.first.size()) << what;
  for (size_t i = 0; i < local.first.size(); ++i) {
    const NDArray& a = local.first[i].second;
    const NDArray& b = remote.first[i].second;
    ASSERT_EQ(a.shape(), b.shape()) << what;
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.nbytes()), 0) << what;
  }
  // The same report: the profile's table header and the timing JSON with the same keys.
  for (const char* part :
       {"output 'y': float32[2,4]", "total (sum of 1 nodes)", "Execution time summary (3 runs)"}) {
    if (!profile && std::string(part).rfind("total", 0) == 0) continue;
    EXPECT_NE(remote.second.find(part), std::string::npos) << what << ": " << remote.second;
    EXPECT_NE(local.second.find(part), std::string::npos) << what << ": " << local.second;
  }
  EXPECT_EQ(keysOf(lastLineJson(local.second)), keysOf(lastLineJson(remote.second))) << what;
  EXPECT_EQ(lastLineJson(remote.second).at("runs").asInt(), 3) << what;
}

TEST(CliRpc, RunOnADeviceOrAServerGivesTheLocalResultsInTheSameForm) {
  std::string dir = scratchDir();
  std::string so = compileMlp(dir, "mlp", "graph");
  auto local = runAt(so, "", dir + "/local.npz");
  expectSameRun(local, runAt(so, "--device local", dir + "/device.npz"), "--device local");
  ServerProcess server(dir + "/work");
  expectSameRun(local, runAt(so, strCat("--rpc 127.0.0.1:", server.port()), dir + "/rpc.npz"),
                "--rpc");
  if (!TestSshd::available()) GTEST_SKIP() << "no sshd: the ssh device is not tried";
  TestSshd sshd;
  std::string options;
  for (const std::string& o : sshd.sshOptions()) options += " --ssh-option " + o;
  expectSameRun(local, runAt(so, strCat("--device ", sshd.device(), options), dir + "/ssh.npz"),
                "--device ssh");
}

TEST(CliRpc, RunThroughATrackerAndShowItsStatus) {
  std::string dir = scratchDir();
  std::string so = compileMlp(dir, "mlp", "aot");
  KilnProcess tracker({"rpc", "tracker", "--port", "0"});
  std::string at = strCat("127.0.0.1:", tracker.port());
  ServerProcess server(dir + "/work", {"--tracker", at, "--key", "mlp-board"});
  CommandResult status;
  for (int i = 0; i < 250; ++i) {
    status = runKiln(strCat("rpc status --tracker ", at, " --json"));
    if (status.exitCode == 0 && lastLineJson(status.output).at("servers").size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(lastLineJson(status.output).at("servers").size(), 1u) << status.output;
  auto local = runAt(so, "", dir + "/local.npz", false);
  expectSameRun(
      local, runAt(so, strCat("--rpc-tracker ", at, " --rpc-key mlp-board"), dir + "/t.npz", false),
      "--rpc-tracker", false);
  CommandResult missing =
      runKiln(strCat("run ", so, " --rpc-tracker ", at, " --rpc-key rpi4 --rpc-wait 1"));
  EXPECT_EQ(missing.exitCode, 4) << missing.output;
  EXPECT_NE(missing.output.find("no server with key 'rpi4' became free within 1"),
            std::string::npos)
      << missing.output;
  CommandResult table = runKiln(strCat("rpc status --tracker ", at));
  EXPECT_EQ(table.exitCode, 0) << table.output;
  EXPECT_NE(table.output.find("1 server(s), 0 request(s) waiting, 1 session(s) served"),
            std::string::npos)
      << table.output;
  EXPECT_NE(table.output.find("mlp-board"), std::string::npos) << table.output;
}

TEST(CliRpc, WherePlaceOptionsAreWrongTheCommandLineSaysSo) {
  std::string dir = scratchDir();
  std::string so = compileMlp(dir, "mlp", "graph");
  struct Case {
    const char* args;
    const char* message;
  };
  for (const Case& c : {
           Case{"--rpc-key board", "--rpc-key needs --rpc-tracker"},
           Case{"--rpc-tracker 127.0.0.1:1", "--rpc-tracker needs --rpc-key"},
           Case{"--device local --rpc 127.0.0.1:1", "give one"},
           Case{"--rpc nowhere", "--rpc 'nowhere': expected HOST:PORT"},
           Case{"--device fpga", "unknown device 'fpga'"},
           Case{"--device local --threads 2", "KILN_NUM_THREADS"},
           Case{"--ssh-option User=x", "--ssh-option applies to --device ssh:USER@HOST only"},
       }) {
    CommandResult r = runKiln(strCat("run ", so, " ", c.args));
    EXPECT_EQ(r.exitCode, 2) << c.args << ": " << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << ": " << r.output;
  }
  CommandResult r = runKiln("rpc server --key board");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--key needs --tracker"), std::string::npos) << r.output;
  r = runKiln("rpc status --tracker 127.0.0.1");
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

}  // namespace
}  // namespace kiln::test
