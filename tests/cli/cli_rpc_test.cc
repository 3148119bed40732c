// Models run over RPC: `kiln rpc server` in its own process, a client session that uploads a
// compiled library, creates its executor remotely and gets the same outputs as a local run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "cli_harness.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/rpc/client.h"
#include "kiln/support/error.h"

namespace kiln::test {
namespace {

using runtime::Module;
using runtime::NDArray;
using runtime::rpc::Client;

// `kiln rpc server --port 0` in a child process; its port read from the line it prints.
class ServerProcess {
 public:
  explicit ServerProcess(const std::string& workdir) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::execl(KILN_BIN, KILN_BIN, "rpc", "server", "--port", "0", "--workdir", workdir.c_str(),
              static_cast<char*>(nullptr));
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
  ~ServerProcess() {
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

}  // namespace
}  // namespace kiln::test
