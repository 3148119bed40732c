// The `kiln` executable: loads the invocation's extensions, builds the command line, runs the
// subcommand and maps every error to its exit status.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "command_line.h"
#include "commands.h"
#include "completion.h"
#include "exit_codes.h"
#include "extension_options.h"
#include "kiln/support/temp_path.h"

namespace {

// Which failure status an error of the subcommand that ran gets.
int failureCode(const CLI::App& app) {
  return app.got_subcommand("compile") ? kiln::cli::kExitCompile : kiln::cli::kExitRuntime;
}

// `kiln __complete CWORD WORDS...` (what the completion script runs): prints the candidates, one
// per line. Completion must never print errors into the user's prompt, so failures print nothing.
int complete(CLI::App& app, int argc, char** argv) {
  using namespace kiln::cli;
  try {
    std::vector<std::string> words(argv + 3, argv + argc);
    std::vector<const char*> wordPointers;
    wordPointers.reserve(words.size());
    for (const std::string& w : words) wordPointers.push_back(w.c_str());
    buildCommandLine(app, loadContext(extensionPaths(std::getenv("KILN_EXTENSION_PATH"),
                                                     static_cast<int>(wordPointers.size()),
                                                     wordPointers.data())));
    size_t cword = std::stoul(argv[2]);
    for (const std::string& c : completions(app, words, cword)) std::cout << c << "\n";
  } catch (const std::exception&) {
    // no candidates: the shell falls back to file names
  }
  return kiln::cli::kExitOk;
}

// Parses the command line and runs the subcommand; an error becomes a message and an exit status.
int runCommandLine(int argc, char** argv) {
  using namespace kiln::cli;
  // An interrupted compile or run leaves no temporary files or folders behind.
  kiln::removeTempPathsOnSignals();
  CLI::App app{"kiln: compile ONNX models into one shared library and run them"};
  if (argc >= 3 && std::string(argv[1]) == kCompleteCommand) return complete(app, argc, argv);
  std::shared_ptr<kiln::driver::CompileContext> context;
  try {
    context = loadContext(extensionPaths(std::getenv("KILN_EXTENSION_PATH"), argc, argv));
  } catch (const ExtensionError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitExtension;
  }
  buildCommandLine(app, context);
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
