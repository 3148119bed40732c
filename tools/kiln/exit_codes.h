// The exit statuses of `kiln`, one per kind of failure, so scripts can tell a typo in a command
// from a model kiln cannot compile, a run that failed, and a bug in kiln (docs/cli.md lists them).
#pragma once

#include <exception>

#include "kiln/support/error.h"

namespace kiln::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitDiverged = 1,   // kiln compare: the compiled model diverges from the reference
  kExitUsage = 2,      // the command line is wrong: unknown option, bad value, clashing paths
  kExitCompile = 3,    // kiln compile could not compile the model
  kExitRuntime = 4,    // run/inspect: the artifact, the inputs or the model's data are wrong
  kExitInternal = 5,   // a bug in kiln
  kExitExtension = 6,  // an extension (--extension, KILN_EXTENSION_PATH) could not be loaded
};

// A mistake in the command line found after parsing (paths that clash, a name the model does not
// have): reported like a parse error, with the usage status.
class UsageError : public Error {
 public:
  using Error::Error;
};

// kiln compare found a divergence (already reported): exit with kExitDiverged.
class Diverged : public std::exception {
 public:
  const char* what() const noexcept override { return "the model diverges from the reference"; }
};

}  // namespace kiln::cli
