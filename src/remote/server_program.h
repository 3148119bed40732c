// Finding the server program a launcher starts, and reading the port it listens on.
#pragma once

#include <string>

namespace kiln::remote {

// RELATIVE to PROGRAM_DIR (empty: the running executable's folder), else $ENV, else NAME (looked
// up in PATH).
std::string findServer(const std::string& programDir, const std::string& relative, const char* env,
                       const std::string& name);
// The runtime library SERVER_PATH links (beside it, in ../lib, or in the build tree's
// ../src/runtime), for devices that do not have it; throws kiln::Error naming where it looked.
std::string findRuntimeLibrary(const std::string& serverPath);
// The port in "kiln rpc server listening on HOST:PORT", the first line COMMAND printed.
int portOf(const std::string& line, const std::string& command);

}  // namespace kiln::remote
