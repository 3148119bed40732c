// The whole `kiln` command line as one CLI11 application, built once per invocation with the
// invocation's compile context, so --help shows everything its extensions add.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "kiln/driver/context.h"

namespace kiln::cli {

// What --version prints: kiln's, the artifact format's and the extension API's versions.
std::string versionText();

// Adds every subcommand and option to APP (the top-level application); the subcommands that
// compile use CONTEXT.
void buildCommandLine(CLI::App& app, const std::shared_ptr<driver::CompileContext>& context);

}  // namespace kiln::cli
