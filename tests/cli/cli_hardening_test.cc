// What a careless or hostile user can do to the command line: truncated and corrupted artifacts,
// clashing paths, concurrent writers, absurd option values, interrupted compiles. Each ends in a
// clear message with the documented exit status, and nothing is lost or left behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli_harness.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "npz.h"

// Shell command lines built with +: readability over the temporaries, in a test.
// NOLINTBEGIN(performance-inefficient-string-concatenation)
namespace kiln::test {
namespace {

namespace fs = std::filesystem;

constexpr int kUsage = 2, kCompile = 3, kRuntime = 4;

bool has(const CommandResult& r, const std::string& part) {
  return r.output.find(part) != std::string::npos;
}

void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  writeFileAtomic(path, bytes.data(), bytes.size());
}

size_t entries(const std::string& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), {}));
}

TEST(CliHardening, TruncatedArtifactsAreErrorsNotSignals) {
  std::string dir = scratchDir();
  std::vector<uint8_t> whole = readFile(compileRelu(dir));
  for (size_t keep : {whole.size() / 2, whole.size() * 9 / 10, whole.size() - 100}) {
    writeBytes(dir + "/t.so", std::vector<uint8_t>(whole.begin(), whole.begin() + long(keep)));
    for (const char* command : {"run ", "inspect "}) {
      CommandResult r = runKiln(command + dir + "/t.so");
      EXPECT_EQ(r.exitCode, kRuntime) << command << keep << ": " << r.output;
      EXPECT_TRUE(has(r, "truncated") || has(r, "no valid kiln checksum")) << r.output;
    }
  }
}

TEST(CliHardening, FlippedWeightBytesAreCaught) {
  std::string dir = scratchDir();
  std::string so = dir + "/conv.so";
  ASSERT_EQ(
      runKiln("compile " + nodeTestDir("test_conv_with_strides_padding") + "/model.onnx -o " + so)
          .exitCode,
      0);
  std::vector<uint8_t> bytes = readFile(so);
  const std::string magic = "KILNARTF";
  auto it = std::search(bytes.begin(), bytes.end(), magic.begin(), magic.end());
  ASSERT_NE(it, bytes.end());
  bytes[size_t(it - bytes.begin()) + 200] ^= 0x20;  // inside the container (metadata)
  writeBytes(dir + "/flipped.so", bytes);
  CommandResult r = runKiln("run " + dir + "/flipped.so");
  EXPECT_EQ(r.exitCode, kRuntime) << r.output;
  EXPECT_TRUE(has(r, "is corrupt")) << r.output;
  EXPECT_TRUE(has(r, "metadata and weights")) << r.output;
  r = runKiln("inspect " + dir + "/flipped.so");
  EXPECT_EQ(r.exitCode, kRuntime) << r.output;
  r = runKiln("inspect " + so);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(has(r, "checksum:        verified")) << r.output;
}

TEST(CliHardening, AnOutputPathThatIsAnInputIsRefused) {
  std::string dir = scratchDir();
  fs::copy_file(reluModel(), dir + "/v.onnx");
  std::vector<uint8_t> model = readFile(dir + "/v.onnx");
  CommandResult r = runKiln("compile " + dir + "/v.onnx -o " + dir + "/./v.onnx");
  EXPECT_EQ(r.exitCode, kUsage) << r.output;
  EXPECT_TRUE(has(r, "is the same path as the model")) << r.output;
  EXPECT_EQ(readFile(dir + "/v.onnx"), model);

  std::string so = compileRelu(dir);
  ASSERT_EQ(runKiln("run " + so + " --outputs " + dir + "/x.npz").exitCode, 0);
  std::vector<uint8_t> inputs = readFile(dir + "/x.npz");
  r = runKiln("run " + so + " --inputs " + dir + "/x.npz --outputs " + dir + "/x.npz");
  EXPECT_EQ(r.exitCode, kUsage) << r.output;
  EXPECT_TRUE(has(r, "is the same path as --inputs")) << r.output;
  EXPECT_EQ(readFile(dir + "/x.npz"), inputs);
  r = runKiln("run " + so + " --outputs " + so);
  EXPECT_EQ(r.exitCode, kUsage) << r.output;
  EXPECT_TRUE(has(r, "is the same path as the artifact")) << r.output;
}

// Two runs writing one --outputs path at once: both succeed and the file is always whole.
TEST(CliHardening, ConcurrentWritersOfOneOutputBothSucceed) {
  std::string dir = scratchDir();
  std::string so = compileRelu(dir);
  std::string out = dir + "/shared.npz";
  for (int round = 0; round < 5; ++round) {
    CommandResult a, b;
    std::thread other([&] { b = runKiln(strCat("run ", so, " --seed 1 --outputs ", out)); });
    a = runKiln(strCat("run ", so, " --seed 2 --outputs ", out));
    other.join();
    EXPECT_EQ(a.exitCode, 0) << a.output;
    EXPECT_EQ(b.exitCode, 0) << b.output;
    EXPECT_EQ(cli::readNpz(out).size(), 1u);
  }
  EXPECT_EQ(entries(dir), 2u);  // relu.so and shared.npz: no temporary files left

  std::string irA, irB;
  CommandResult c, d;
  std::thread other([&] {
    d = runKiln("compile " + reluModel() + " -o " + dir + "/b.so --dump-ir " + dir + "/ir");
  });
  c = runKiln("compile " + reluModel() + " -o " + dir + "/a.so --dump-ir " + dir + "/ir");
  other.join();
  EXPECT_EQ(c.exitCode, 0) << c.output;
  EXPECT_EQ(d.exitCode, 0) << d.output;
  for (const auto& e : fs::directory_iterator(dir + "/ir")) {
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
  }
}

TEST(CliHardening, ThreadCountsAreCheckedUpFront) {
  std::string dir = scratchDir();
  std::string so = compileRelu(dir);
  for (const char* bad : {"2147483647", "-1", "0", "99999999999999999999"}) {
    CommandResult r = runKiln("run " + so + " --threads " + bad);
    EXPECT_EQ(r.exitCode, kUsage) << bad << ": " << r.output;
    EXPECT_TRUE(has(r, "--threads")) << r.output;
    EXPECT_LT(r.output.size(), 300u) << r.output;
  }
  for (const char* bad : {"abc", "0", "-4", "2x", "5000"}) {
    ::setenv("KILN_NUM_THREADS", bad, 1);
    CommandResult r = runKiln("run " + so);
    ::unsetenv("KILN_NUM_THREADS");
    EXPECT_EQ(r.exitCode, kRuntime) << bad << ": " << r.output;
    EXPECT_TRUE(has(r, std::string("KILN_NUM_THREADS is '") + bad + "'")) << r.output;
  }
  ::setenv("KILN_NUM_THREADS", "2", 1);
  CommandResult r = runKiln("run " + so);
  ::unsetenv("KILN_NUM_THREADS");
  EXPECT_EQ(r.exitCode, 0) << r.output;
}

TEST(CliHardening, BadCountsAreUsageErrorsBeforeAnythingIsWritten) {
  std::string dir = scratchDir();
  std::string so = compileRelu(dir);
  for (const std::string& args :
       {std::string("--repeat 0"), std::string("--number -2"), std::string("--print-top -1")}) {
    CommandResult r = runKiln(strCat("run ", so, " --outputs ", dir, "/o.npz ", args));
    EXPECT_EQ(r.exitCode, kUsage) << args << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir + "/o.npz")) << args;
  }
  for (const std::string& args : {std::string("run"), std::string("run " + so + " --bogus"),
                                  std::string("compile " + reluModel()), std::string("frobnicate"),
                                  std::string("run " + so + " --fill-mode sometimes")}) {
    EXPECT_EQ(runKiln(args).exitCode, kUsage) << args;
  }
}

TEST(CliHardening, UpperCaseNpzIsAnArchiveAndMissingFoldersAreNamed) {
  std::string dir = scratchDir();
  std::string so = compileRelu(dir);
  CommandResult r = runKiln("run " + so + " --outputs " + dir + "/OUT.NPZ");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_FALSE(isDirectory(dir + "/OUT.NPZ"));
  EXPECT_EQ(cli::readNpz(dir + "/OUT.NPZ").size(), 1u);
  r = runKiln("run " + so + " --inputs " + dir + "/OUT.NPZ");
  EXPECT_FALSE(has(r, "expected an .npz file")) << r.output;

  r = runKiln("run " + so + " --outputs " + dir + "/missing/o.npz");
  EXPECT_EQ(r.exitCode, kUsage) << r.output;
  EXPECT_TRUE(has(r, "the folder '" + dir + "/missing' does not exist")) << r.output;
  EXPECT_FALSE(has(r, ".tmp")) << r.output;
  r = runKiln("compile " + reluModel() + " -o " + dir + "/missing/m.so");
  EXPECT_EQ(r.exitCode, kUsage) << r.output;
  EXPECT_TRUE(has(r, "the folder '" + dir + "/missing' does not exist")) << r.output;
}

TEST(CliHardening, BuiltinFunctionsAreNotModelNames) {
  std::string dir = scratchDir();
  std::string so = compileRelu(dir);
  for (const char* name : {"get_target", "list_models", "nosuch"}) {
    CommandResult r = runKiln("run " + so + " --model-name " + name);
    EXPECT_EQ(r.exitCode, kUsage) << r.output;
    EXPECT_TRUE(has(r, "has no model of that name; it has: default")) << r.output;
  }
}

TEST(CliHardening, ModelsKilnCannotCompileExitWithTheCompileStatus) {
  std::string dir = scratchDir();
  CommandResult r =
      runKiln("compile " + reluModel() + " -o " + dir + "/x.so --input-shapes " + "'nosuch:[1,2]'");
  EXPECT_EQ(r.exitCode, kCompile) << r.output;
  EXPECT_TRUE(has(r, "not an input of the model")) << r.output;
  r = runKiln("compile " + dir + "/absent.onnx -o " + dir + "/x.so");
  EXPECT_EQ(r.exitCode, kCompile) << r.output;
}

// An --inputs archive or folder with entries no model input takes (a misspelt name, a file for
// another model) runs, but says which entries it ignored.
TEST(CliHardening, InputsTheModelDoesNotHaveAreNamedInAWarning) {
  std::string dir = scratchDir();
  std::string so = compileRelu(dir);
  runPythonScript(dir, "inputs",
                  "import numpy as np, shutil, os\n"
                  "x = np.ones((3, 4, 5), np.float32)\n"
                  "np.savez('" +
                      dir +
                      "/in.npz', x=x, typo=x)\n"
                      "os.makedirs('" +
                      dir +
                      "/set', exist_ok=True)\n"
                      "src = '" +
                      nodeTestDir("test_relu") +
                      "/test_data_set_0/input_0.pb'\n"
                      "shutil.copy(src, '" +
                      dir +
                      "/set/input_0.pb')\n"
                      "shutil.copy(src, '" +
                      dir + "/set/input_1.pb')\n");
  CommandResult r = runKiln("run " + so + " --inputs " + dir + "/in.npz");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(
      has(r, "warning: --inputs '" + dir + "/in.npz' has 'typo', which no model input takes"))
      << r.output;
  r = runKiln("run " + so + " --inputs " + dir + "/set");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(has(r, "has 'input_1.pb', which no model input takes (the model's inputs: 'x')"))
      << r.output;
  r = runKiln("run " + so + " --inputs " + nodeTestDir("test_relu") + "/test_data_set_0");
  EXPECT_FALSE(has(r, "warning")) << r.output;
}

// Input shapes whose size in bytes (not only in elements) overflows are refused at compile time,
// never planned as a wrapped-around workspace.
TEST(CliHardening, InputShapesWhoseBytesOverflowAreRefused) {
  std::string dir = scratchDir();
  runPythonScript(dir, "symbolic",
                  "import onnx\n"
                  "from onnx import helper, TensorProto\n"
                  "g = helper.make_graph([helper.make_node('Relu', ['x'], ['y'])], 'g',\n"
                  "    [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['N', 4])],\n"
                  "    [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['N', 4])])\n"
                  "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), '" +
                      dir + "/sym.onnx')\n");
  // Elements that fit in int64, bytes that do not (x4 for float32, x4 again for the dim of 4).
  for (const char* shape : {"2305843009213693951", "1152921504606846976"}) {
    CommandResult r = runKiln("compile " + dir + "/sym.onnx -o " + dir +
                              "/x.so --input-shapes 'x:[" + shape + ",4]'");
    EXPECT_EQ(r.exitCode, kCompile) << shape << ": " << r.output;
    EXPECT_TRUE(has(r, "overflow") || has(r, "any machine can hold") || has(r, "more than"))
        << r.output;
    EXPECT_FALSE(fs::exists(dir + "/x.so"));
  }
  CommandResult r =
      runKiln("compile " + dir + "/sym.onnx -o " + dir + "/x.so --input-shapes 'x:[8,4]'");
  EXPECT_EQ(r.exitCode, 0) << r.output;
}

// ONNX makes an out-of-range Gather index an error: the run fails naming the kernel instead of
// clamping and exiting 0 with wrong rows.
TEST(CliHardening, OutOfRangeGatherIndicesFailTheRun) {
  std::string dir = scratchDir();
  std::string so = dir + "/gather.so";
  ASSERT_EQ(runKiln("compile " + nodeTestDir("test_gather_0") + "/model.onnx -o " + so).exitCode,
            0);
  runtime::NDArray data = runtime::NDArray::empty({5, 4, 3, 2}, runtime::DataType::float32());
  for (int64_t i = 0; i < data.numel(); ++i) data.data<float>()[i] = static_cast<float>(i);
  for (int64_t bad : {int64_t{5}, int64_t{-6}, int64_t{1} << 40}) {
    runtime::NDArray indices = runtime::NDArray::empty({3}, runtime::DataType::int64());
    indices.data<int64_t>()[0] = 0;
    indices.data<int64_t>()[1] = bad;
    indices.data<int64_t>()[2] = -1;
    cli::writeNpz(dir + "/in.npz", {{"data", data}, {"indices", indices}});
    CommandResult r =
        runKiln(strCat("run ", so, " --inputs ", dir, "/in.npz --outputs ", dir, "/out.npz"));
    EXPECT_EQ(r.exitCode, kRuntime) << bad << ": " << r.output;
    EXPECT_TRUE(has(r, "kernel 'Gather_0'")) << r.output;
    EXPECT_TRUE(has(r, "outside the axis it indexes")) << r.output;
    EXPECT_FALSE(fs::exists(dir + "/out.npz"));
  }
}

// An interrupted compile removes its scratch folder and its half-linked output; a compile killed
// with SIGKILL leaves them, and the next compile removes them.
TEST(CliHardening, InterruptedCompilesLeaveNothingBehind) {
  std::string dir = scratchDir();
  std::string tmp = dir + "/tmp";
  fs::create_directories(tmp);
  std::string model = nodeTestDir("test_conv_with_strides_padding") + "/model.onnx";
  std::string bin = KILN_BIN;
  for (int sig : {SIGINT, SIGTERM}) {
    bool interrupted = false;
    for (int attempt = 0; attempt < 20 && !interrupted; ++attempt) {
      pid_t child = ::fork();
      if (child == 0) {
        ::setenv("TMPDIR", tmp.c_str(), 1);
        std::string out = dir + "/out.so";
        ::execl(bin.c_str(), bin.c_str(), "compile", model.c_str(), "-o", out.c_str(), nullptr);
        ::_exit(127);
      }
      // Wait for the scratch folder to appear, then interrupt the compile in the middle.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (entries(tmp) == 0 && std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        if (::waitpid(child, &status, WNOHANG) == child) {
          child = -1;
          break;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      if (child < 0) continue;  // finished before it could be interrupted: try again
      ::kill(child, sig);
      int status = 0;
      ::waitpid(child, &status, 0);
      interrupted = WIFSIGNALED(status) && WTERMSIG(status) == sig;
      EXPECT_EQ(entries(tmp), 0u) << "signal " << sig;
      for (const auto& e : fs::directory_iterator(dir)) {
        EXPECT_EQ(e.path().filename().string().find("out.so.tmp"), std::string::npos) << e.path();
      }
    }
    EXPECT_TRUE(interrupted) << "signal " << sig << " never reached a running compile";
  }

  // What a SIGKILLed compile leaves (a dead process's scratch folder and partial output) goes
  // with the next compile.
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  std::string staleDir = tmp + "/kiln-codegen-" + std::to_string(dead) + "-Xa1b2c";
  std::string stalePart = dir + "/out.so.tmp." + std::to_string(dead) + ".0";
  fs::create_directories(staleDir);
  writeFileAtomic(staleDir + "/kernels.0.o", std::string(1000, 'o'));
  writeFileAtomic(stalePart, std::string(1000, 'p'));
  ::setenv("TMPDIR", tmp.c_str(), 1);
  CommandResult r = runKiln("compile " + reluModel() + " -o " + dir + "/out.so");
  ::unsetenv("TMPDIR");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_FALSE(fs::exists(staleDir));
  EXPECT_FALSE(fs::exists(stalePart));
}

}  // namespace
}  // namespace kiln::test
// NOLINTEND(performance-inefficient-string-concatenation)
