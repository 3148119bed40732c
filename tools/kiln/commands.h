// The `kiln` subcommands; each file registers one on the application.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace kiln::cli {

void addCompileCommand(CLI::App& app);
void addRunCommand(CLI::App& app);
void addInspectCommand(CLI::App& app);
void addCompareCommand(CLI::App& app);
void addRpcCommand(CLI::App& app);
// `kiln rpc tracker` and `kiln rpc status`, under the rpc command.
void addRpcTrackerCommands(CLI::App* rpc);

// --inputs, --fill-mode and --seed, as run and compare read a model's inputs (model_io.cc).
void addInputOptions(CLI::App* cmd, std::string& inputs, std::string& fillMode, uint64_t& seed);

}  // namespace kiln::cli
