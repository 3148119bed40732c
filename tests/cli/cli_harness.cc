// Process plumbing for the command-line tests.
#include "cli_harness.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "kiln/support/file.h"

namespace kiln::test {

CommandResult runKiln(const std::string& args, const std::string& environment) {
  return runShell(environment + " " + std::string(KILN_BIN) + " " + args);
}

CommandResult runShell(const std::string& command) {
  std::string cmd = command + " 2>&1";
  CommandResult result;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return result;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) result.output.append(buf, n);
  int status = pclose(pipe);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string scratchDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(KILN_BINARY_DIR) / "tests" / "scratch" /
                              (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

void runPythonScript(const std::string& dir, const std::string& name, const std::string& script) {
  std::string path = dir + "/" + name + ".py";
  writeFileAtomic(path, script);
  EXPECT_EQ(std::system(("/usr/bin/python3 " + path).c_str()), 0) << script;
}

std::string nodeTestDir(const std::string& name) {
  return "/usr/share/libonnx-testdata/data/node/" + name;
}

std::string reluModel() { return nodeTestDir("test_relu") + "/model.onnx"; }

std::string compileRelu(const std::string& dir) {
  std::string so = dir + "/relu.so";
  CommandResult r = runKiln("compile " + reluModel() + " -o " + so);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  return so;
}

}  // namespace kiln::test
