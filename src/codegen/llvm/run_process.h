// Running an external tool (the linker) and capturing what it printed.
#pragma once

#include <string>
#include <vector>

namespace kiln::codegen {

struct ProcessResult {
  int exitCode = -1;   // -1 when the program could not be started
  std::string output;  // stdout and stderr together
};

// Runs ARGV (argv[0] is looked up in PATH) to completion; LOG_PATH receives its output.
ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& logPath);

// The full path of PROGRAM in PATH, or "" when it is not there.
std::string findProgram(const std::string& program);

}  // namespace kiln::codegen
