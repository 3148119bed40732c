// --extension PATH and KILN_EXTENSION_PATH: the extensions one `kiln` invocation loads into its own
// compile context, before the command line is parsed, so that --help lists what they add.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/driver/context.h"
#include "kiln/driver/offload_target.h"
#include "kiln/support/error.h"

namespace kiln::cli {

// An extension could not be loaded: exit with kExitExtension.
class ExtensionError : public Error {
 public:
  using Error::Error;
};

// Every entry of KILN_EXTENSION_PATH (ENV_VALUE; null when unset), then the value of every
// --extension option in ARGV (`--extension P` or `--extension=P`), in order.
std::vector<std::string> extensionPaths(const char* envValue, int argc, const char* const* argv);

// A context with the extensions at PATHS loaded; throws ExtensionError naming the one that failed.
std::shared_ptr<driver::CompileContext> loadContext(const std::vector<std::string>& paths);

// Adds --extension (read by extensionPaths before parsing; listed so --help shows it and the parser
// accepts it) to CMD, and a footer naming the backends CONTEXT loaded.
void addExtensionOption(CLI::App* cmd, const driver::CompileContext& context);

// Adds --target-<backend>-<attr> for every target attribute of every backend CONTEXT loaded, with
// its type checked as it is parsed; given values go to (*VALUES)[backend][attr].
void addTargetAttrOptions(CLI::App* cmd, const driver::CompileContext& context,
                          const std::shared_ptr<driver::BackendAttrs>& values);

}  // namespace kiln::cli
