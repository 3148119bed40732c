// The list of subcommands, and the options every one of them shares (--extension, --config).
#include "command_line.h"

#include "commands.h"
#include "completion.h"
#include "config_file.h"
#include "extension_options.h"
#include "kiln/extension/extension_api.h"
#include "kiln/runtime/artifact.h"

namespace kiln::cli {

std::string versionText() {
  return strCat(runtime::producerVersion(), "\nartifact format version ",
                runtime::kArtifactFormatVersion, "\nextension API version ", KILN_ABI_VERSION);
}

void buildCommandLine(CLI::App& app, const std::shared_ptr<driver::CompileContext>& context) {
  // Every option shows the value it starts with, so --help lists every default.
  app.option_defaults()->always_capture_default();
  app.set_version_flag("--version", versionText(),
                       "Print kiln's version, the artifact format version and the extension API "
                       "version, and exit");
  app.require_subcommand(1);
  addCompileCommand(app, context);
  addRunCommand(app, context);
  addGenerateCommand(app, context);
  addInspectCommand(app);
  addCompareCommand(app, context);
  addRpcCommand(app, context);
  addCompletionCommand(app);
  // The subcommands that compile or run models load extensions.
  for (const char* name : {"compile", "run", "inspect", "compare"}) {
    addExtensionOption(app.get_subcommand(name), *context);
  }
  addExtensionOption(app.get_subcommand("rpc")->get_subcommand("server"), *context);
  addConfigOption(app);  // after the subcommands: each of them gets --config too
}

}  // namespace kiln::cli
