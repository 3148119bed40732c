// --config FILE.json: option defaults for any subcommand from a JSON file, one object per
// subcommand ({"compile": {"opt-level": 2}, "rpc": {"server": {"port": 9000}}}); options given on
// the command line win.
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::cli {

// Gives APP (the top-level `kiln` application, with every subcommand added) and each of its
// subcommands a --config option reading such files. An unknown subcommand or option, a value of
// the wrong kind or a file that is not JSON is a usage error naming the key.
void addConfigOption(CLI::App& app);

}  // namespace kiln::cli
