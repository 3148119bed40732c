// The `kiln` subcommands; each file registers one on the application.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "kiln/driver/context.h"

namespace kiln::cli {

// The commands that compile do so with CONTEXT, the invocation's own (with its extensions).
void addCompileCommand(CLI::App& app, std::shared_ptr<const driver::CompileContext> context);
void addRunCommand(CLI::App& app, const std::shared_ptr<const driver::CompileContext>& context);
void addGenerateCommand(CLI::App& app,
                        const std::shared_ptr<const driver::CompileContext>& context);
void addInspectCommand(CLI::App& app);
void addCompareCommand(CLI::App& app, std::shared_ptr<const driver::CompileContext> context);
void addRpcCommand(CLI::App& app, const std::shared_ptr<const driver::CompileContext>& context);
// `kiln rpc tracker` and `kiln rpc status`, under the rpc command.
void addRpcTrackerCommands(CLI::App* rpc);

// --inputs, --fill-mode and --seed, as run and compare read a model's inputs (model_io.cc).
void addInputOptions(CLI::App* cmd, std::string& inputs, std::string& fillMode, uint64_t& seed);

}  // namespace kiln::cli
