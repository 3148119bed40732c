// The `kiln` command line: compile, run, inspect and compare models.
#include <cstdio>
#include <iostream>
#include <new>

#include "commands.h"
#include "config_file.h"
#include "exit_codes.h"
#include "kiln/runtime/artifact.h"
#include "kiln/support/temp_path.h"

namespace {

// Which failure status an error of the subcommand that ran gets.
int failureCode(const CLI::App& app) {
  return app.got_subcommand("compile") ? kiln::cli::kExitCompile : kiln::cli::kExitRuntime;
}

// Parses the command line and runs the subcommand; an error becomes a message and an exit status.
int runCommandLine(int argc, char** argv) {
  using namespace kiln::cli;
  // An interrupted compile or run leaves no temporary files or folders behind.
  kiln::removeTempPathsOnSignals();
  CLI::App app{"kiln: compile ONNX models into one shared library and run them"};
  app.set_version_flag("--version", kiln::runtime::producerVersion());
  app.require_subcommand(1);
  addCompileCommand(app);
  addRunCommand(app);
  addInspectCommand(app);
  addCompareCommand(app);
  addRpcCommand(app);
  addConfigOption(app);  // after the subcommands: each of them gets --config too
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with status 0; every real parse error is a usage error.
    int status = app.exit(e);
    return status == 0 ? kExitOk : kExitUsage;
  } catch (const Diverged&) {
    return kExitDiverged;
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\nRun with --help for more information.\n";
    return kExitUsage;
  } catch (const kiln::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return failureCode(app);
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
    return failureCode(app);
  } catch (const std::exception& e) {
    std::cerr << "internal error (a bug in kiln, please report it): " << e.what() << "\n";
    return kExitInternal;
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return runCommandLine(argc, argv);
  } catch (const std::exception& e) {
    // Setting up the command line or reporting an error failed: nothing may escape main.
    std::fprintf(stderr, "internal error (a bug in kiln, please report it): %s\n", e.what());
    return kiln::cli::kExitInternal;
  } catch (...) {
    std::fputs("internal error (a bug in kiln, please report it): unknown exception\n", stderr);
    return kiln::cli::kExitInternal;
  }
}
