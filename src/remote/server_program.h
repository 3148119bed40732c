// Finding the server program a launcher starts, and reading the port it listens on.
#pragma once

#include <string>
#include <vector>

namespace kiln::remote {

// RELATIVE to PROGRAM_DIR (empty: the running executable's folder), else $ENV, else NAME (looked
// up in PATH).
std::string findServer(const std::string& programDir, const std::string& relative, const char* env,
                       const std::string& name);
// The runtime's libraries SERVER_PATH needs (the core, RPC, run-time ops and the debug executor,
// beside it or in ../lib), for devices that do not have them; throws kiln::Error naming where it
// looked or which part is missing.
std::vector<std::string> findRuntimeLibraries(const std::string& serverPath);
// The port in "kiln rpc server listening on HOST:PORT", the first line COMMAND printed.
int portOf(const std::string& line, const std::string& command);

}  // namespace kiln::remote
