// The `kiln` command line: compile, run and inspect models.
#include <iostream>

#include "commands.h"
#include "kiln/runtime/artifact.h"
#include "kiln/support/error.h"

int main(int argc, char** argv) {
  CLI::App app{"kiln: compile ONNX models into one shared library and run them"};
  app.set_version_flag("--version", kiln::runtime::producerVersion());
  app.require_subcommand(1);
  kiln::cli::addCompileCommand(app);
  kiln::cli::addRunCommand(app);
  kiln::cli::addInspectCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const kiln::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
