// Runs the kiln executable as a user would, capturing its exit code and output.
#pragma once

#include <string>

namespace kiln::test {

struct CommandResult {
  int exitCode = -1;
  std::string output;  // stdout and stderr together
};

// Runs COMMAND (shell text, stderr included) and waits for it.
CommandResult runShell(const std::string& command);
// Runs `kiln ARGS` through the shell (ARGS is shell text) and waits for it; ENVIRONMENT, when
// given, is prefixed as shell assignments ("NAME=value ...").
CommandResult runKiln(const std::string& args, const std::string& environment = "");
// A fresh empty folder under the test binary's directory, named after the running test.
std::string scratchDir();
// Writes SCRIPT to DIR/NAME.py and runs it with /usr/bin/python3 (which has numpy and onnx);
// a failure fails the test, with the script.
void runPythonScript(const std::string& dir, const std::string& name, const std::string& script);
// The ONNX backend test data of one node test (e.g. "test_relu").
std::string nodeTestDir(const std::string& name);
// The ONNX node test of one Relu, the smallest model there is.
std::string reluModel();
// Compiles reluModel() to DIR/relu.so (a failure fails the test) and returns that path.
std::string compileRelu(const std::string& dir);

}  // namespace kiln::test
