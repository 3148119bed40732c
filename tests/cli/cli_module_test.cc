// Libraries of several models and weights kept beside the library, through the command line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "cli_harness.h"
#include "kiln/frontend/onnx/tensor_proto.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/support/json.h"
#include "npz.h"

namespace kiln::test {
namespace {

// A two-layer perceptron with weights from SEED, as an ONNX file with initializers.
std::string writeMlp(const std::string& dir, const std::string& name, int seed, int hidden) {
  std::string path = dir + "/" + name + ".onnx";
  std::string script = strCat(
      "import numpy as np, onnx\n"
      "from onnx import helper, numpy_helper, TensorProto\n"
      "r = np.random.default_rng(",
      seed, ")\n", "w1 = numpy_helper.from_array(r.standard_normal((16, ", hidden,
      "), dtype=np.float32), 'w1')\n"
      "w2 = numpy_helper.from_array(r.standard_normal((",
      hidden,
      ", 4), dtype=np.float32), 'w2')\n"
      "g = helper.make_graph([helper.make_node('MatMul', ['x', 'w1'], ['h']),\n"
      "                       helper.make_node('Relu', ['h'], ['r']),\n"
      "                       helper.make_node('MatMul', ['r', 'w2'], ['y'])], 'mlp',\n"
      "    [helper.make_tensor_value_info('x', TensorProto.FLOAT, [2, 16])],\n"
      "    [helper.make_tensor_value_info('y', TensorProto.FLOAT, [2, 4])], [w1, w2])\n"
      "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), '",
      path, "')\n");
  runPythonScript(dir, name, script);
  return path;
}

runtime::NDArray output0(const std::string& npz) { return cli::readNpz(npz).at(0).second; }

TEST(CliModule, SeveralModelsInOneLibrary) {
  std::string dir = scratchDir();
  std::string mlp = writeMlp(dir, "mlp", 1, 8);
  std::string relu = nodeTestDir("test_relu");
  std::string so = dir + "/both.so";
  CommandResult r = runKiln(
      strCat("compile ", mlp, " ", relu, "/model.onnx -o ", so, " --model-name a --model-name b"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln(strCat("run ", so, " --model-name b --inputs ", relu, "/test_data_set_0 --outputs ",
                     dir, "/b_out"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  runtime::NDArray got = frontend::onnx::loadTensorProto(dir + "/b_out/output_0.pb");
  runtime::NDArray want = frontend::onnx::loadTensorProto(relu + "/test_data_set_0/output_0.pb");
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < got.numel(); ++i) ASSERT_EQ(got.data<float>()[i], want.data<float>()[i]);
  r = runKiln(strCat("run ", so, " --model-name a"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("output 'y': float32[2,4]"), std::string::npos) << r.output;
  r = runKiln(strCat("run ", so, " --model-name c"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("it has: a, b"), std::string::npos) << r.output;

  r = runKiln("inspect --json " + so);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  Json info = Json::parse(r.output);
  ASSERT_EQ(info.at("models").size(), 2u);
  const Json& a = info.at("models")[0];
  EXPECT_EQ(a.at("name").asString(), "a");
  EXPECT_EQ(a.at("executor").asString(), "graph");
  EXPECT_EQ(a.at("inputs")[0].at("name").asString(), "x");
  EXPECT_EQ(a.at("num_params").asInt(), 2);
  EXPECT_GT(a.at("params_bytes").asInt(), (16 * 8 + 8 * 4) * 4);
  EXPECT_GT(a.at("workspace_bytes").asInt(), 0);
  EXPECT_EQ(info.at("models")[1].at("outputs")[0].at("shape").size(), 3u);
  EXPECT_EQ(info.at("format_version").asInt(), 2);

  r = runKiln(strCat("compile ", mlp, " ", relu, "/model.onnx -o ", dir, "/x.so --model-name a"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("2 models and 1 --model-name"), std::string::npos) << r.output;
}

TEST(CliModule, WeightsBesideTheLibrary) {
  std::string dir = scratchDir();
  std::string mlp = writeMlp(dir, "mlp", 1, 8);
  std::string twin = writeMlp(dir, "twin", 2, 8);  // same shapes, other weights
  CommandResult r = runKiln(strCat("compile ", mlp, " -o ", dir, "/in.so"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln(strCat("compile ", mlp, " -o ", dir, "/out.so --params external"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find(dir + "/out.so.params"), std::string::npos) << r.output;
  r = runKiln(strCat("compile ", twin, " -o ", dir, "/twin.so --params external"));
  ASSERT_EQ(r.exitCode, 0) << r.output;

  r = runKiln(strCat("run ", dir, "/in.so --fill-mode ones --outputs ", dir, "/in.npz"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln(strCat("run ", dir, "/out.so --fill-mode ones"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("--params FILE"), std::string::npos) << r.output;
  r = runKiln(strCat("run ", dir, "/out.so --fill-mode ones --params ", dir,
                     "/out.so.params --outputs ", dir, "/out.npz"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  runtime::NDArray a = output0(dir + "/in.npz"), b = output0(dir + "/out.npz");
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(a.data<float>()[i], b.data<float>()[i]);
  r = runKiln(strCat("run ", dir, "/out.so --params ", dir, "/twin.so.params"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("does not belong to model 'default'"), std::string::npos) << r.output;
  r = runKiln(strCat("inspect ", dir, "/out.so"));
  EXPECT_NE(r.output.find("in a separate .params file"), std::string::npos) << r.output;
}

// Runs SHELL_COMMAND; returns its exit status and output.
CommandResult shell(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  char buf[4096];
  for (size_t n; pipe && (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
  int status = pipe ? pclose(pipe) : -1;
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(CliProfile, TableTraceAndNodeOutputs) {
  std::string dir = scratchDir();
  std::string mlp = writeMlp(dir, "mlp", 4, 32);
  CommandResult r = runKiln(strCat("compile ", mlp, " -o ", dir, "/mlp.so"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln(strCat("inspect --json ", dir, "/mlp.so"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  size_t kernels = Json::parse(r.output).at("models")[0].at("metadata").at("kernels").size();
  r = runKiln(strCat("run ", dir, "/mlp.so --fill-mode ones --outputs ", dir, "/out.npz",
                     " --profile --repeat 3 --trace ", dir, "/trace.json --dump-outputs ", dir,
                     "/nodes"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // One table row per kernel (rows start with the kernel's index), percentages adding up to 100,
  // and the total reconciled with the end-to-end time.
  double percent = 0;
  size_t rows = 0;
  std::istringstream table(r.output.substr(r.output.find("#    node")));
  std::string line;
  std::getline(table, line);
  while (std::getline(table, line) && std::isdigit(static_cast<unsigned char>(line[0]))) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    ASSERT_GE(f.size(), 6u) << line;
    EXPECT_EQ(f[0], std::to_string(rows)) << line;
    percent += std::stod(f[4]);
    ++rows;
  }
  EXPECT_EQ(rows, kernels) << r.output;
  EXPECT_NEAR(percent, 100, 0.1) << r.output;
  EXPECT_NE(r.output.find("total (sum of " + std::to_string(kernels) + " nodes)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("end-to-end run():"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kiln.MatMulPacked"), std::string::npos) << r.output;

  Json trace = Json::parse(readTextFile(dir + "/trace.json"));
  ASSERT_EQ(trace.at("traceEvents").size(), kernels);
  for (const Json& e : trace.at("traceEvents").asArray()) {
    EXPECT_EQ(e.at("ph").asString(), "X");
    EXPECT_GE(e.at("dur").asDouble(), 0);
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/nodes"))
    files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), kernels);
  // The last node's output is the model's output.
  runtime::NDArray last = cli::parseNpy(readTextFile(files.back()), files.back());
  runtime::NDArray want = output0(dir + "/out.npz");
  ASSERT_EQ(last.shape(), want.shape());
  for (int64_t i = 0; i < want.numel(); ++i)
    EXPECT_EQ(last.data<float>()[i], want.data<float>()[i]);
}

// --compile-to: the phase's IR instead of a library, said so; a phase name it does not know is
// refused with the list.
TEST(CliCompileTo, StopsAfterThePhaseAndWritesItsIr) {
  std::string dir = scratchDir();
  std::string mlp = writeMlp(dir, "mlp", 3, 8);
  CommandResult r = runKiln(strCat("compile ", mlp, " -o ", dir, "/mlp.tir --compile-to lower"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("(stopped after phase 'lower')"), std::string::npos) << r.output;
  EXPECT_NE(readTextFile(dir + "/mlp.tir").find("kernel kiln_default__"), std::string::npos);

  r = runKiln(strCat("compile ", mlp, " -o ", dir, "/mlp.plan --compile-to plan"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(Json::parse(readTextFile(dir + "/mlp.plan")).at("default").contains("storages"));

  r = runKiln(strCat("compile ", mlp, " -o ", dir, "/x.out --compile-to optimise"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("import,graph-passes,partition,fuse,lower,plan,executor-codegen,"
                          "codegen,link"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fileExists(dir + "/x.out"));
}

TEST(CliStatic, TheExampleProgramRunsWithoutTheRuntime) {
  std::string dir = scratchDir();
  CommandResult r =
      shell(strCat(KILN_SOURCE_DIR, "/examples/aot_static/run.sh ", KILN_BIN, " ", dir));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("60 outputs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" 0 wrong"), std::string::npos) << r.output;
}

TEST(CliStatic, WeightsAreBuiltIntoTheStaticLibrary) {
  std::string dir = scratchDir();
  std::string mlp = writeMlp(dir, "mlp", 3, 24);
  CommandResult r = runKiln(strCat("compile ", mlp,
                                   " --executor aot --emit static --model-name "
                                   "net -o ",
                                   dir, "/libmlp.a"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  ASSERT_TRUE(std::filesystem::exists(dir + "/libmlp.h")) << r.output;
  // A program that fills the input with ones and prints every output.
  writeFileAtomic(dir + "/main.c", R"(#include <stdio.h>
#include <stdlib.h>
#include "libmlp.h"
int main(void) {
  float* x = aligned_alloc(64, 64 * ((KILN_NET_INPUT_0_BYTES + 63) / 64));
  float* y = aligned_alloc(64, 64 * ((KILN_NET_OUTPUT_0_BYTES + 63) / 64));
  void* ws = aligned_alloc(64, 64 * (KILN_NET_WORKSPACE_BYTES / 64 + 1));
  for (int i = 0; i < KILN_NET_INPUT_0_BYTES / 4; ++i) x[i] = 1.0f;
  void* in[] = {x};
  void* out[] = {y};
  int status = kiln_net_run(in, out, kiln_net_params, ws);
  for (int i = 0; i < KILN_NET_OUTPUT_0_BYTES / 4; ++i) printf("%.9g\n", y[i]);
  return status;
}
)");
  r = shell(strCat("cc -std=c11 -Wall -Werror -I", dir, " ", dir, "/main.c ", dir,
                   "/libmlp.a -lm -o ", dir, "/mlp && ", dir, "/mlp"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::vector<float> got;
  for (size_t at = 0, end; (end = r.output.find('\n', at)) != std::string::npos; at = end + 1)
    got.push_back(std::stof(r.output.substr(at, end - at)));

  // The same model through the runtime.
  r = runKiln(strCat("compile ", mlp, " -o ", dir, "/mlp.so"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = runKiln(strCat("run ", dir, "/mlp.so --fill-mode ones --outputs ", dir, "/want.npz"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  runtime::NDArray want = output0(dir + "/want.npz");
  ASSERT_EQ(static_cast<int64_t>(got.size()), want.numel());
  float scale = 1;
  for (int64_t i = 0; i < want.numel(); ++i)
    scale = std::max(scale, std::fabs(want.data<float>()[i]));
  for (int64_t i = 0; i < want.numel(); ++i)
    EXPECT_NEAR(got[i], want.data<float>()[i], 1e-6f * scale) << i;
}

TEST(CliStatic, StaticLibrariesNeedTheAotExecutorAndEmbeddedWeights) {
  std::string dir = scratchDir();
  std::string relu = nodeTestDir("test_relu") + "/model.onnx";
  CommandResult r = runKiln(strCat("compile ", relu, " --emit static -o ", dir, "/a.a"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("--emit static needs --executor aot"), std::string::npos) << r.output;
  r = runKiln(
      strCat("compile ", relu, " --emit static --executor aot --params external -o ", dir, "/a.a"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("--params external"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/a.a"));
}

}  // namespace
}  // namespace kiln::test
