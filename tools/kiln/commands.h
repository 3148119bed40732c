// The `kiln` subcommands; each file registers one on the application.
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::cli {

void addCompileCommand(CLI::App& app);
void addRunCommand(CLI::App& app);
void addInspectCommand(CLI::App& app);

}  // namespace kiln::cli
