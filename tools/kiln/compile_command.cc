// `kiln compile MODEL.onnx -o MODEL.so`: the compiler driver behind a command line.
#include <chrono>
#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "input_shapes.h"
#include "kiln/driver/compile.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "path_clash.h"

namespace kiln::cli {
namespace {

struct CompileArgs {
  std::string model, output, inputShapes;
  driver::CompileOptions options;
};

void runCompile(const CompileArgs& args) {
  if (!fileExists(args.model)) {
    throw Error(strCat("model file '", args.model, "' does not exist"));
  }
  refuseOverwrite("-o", args.output, "the model", args.model);
  refuseOverwrite("--dump-ir", args.options.dumpIrDir, "the model", args.model);
  if (isDirectory(args.output)) {
    throw UsageError(
        strCat("-o '", args.output, "' is a folder; expected the artifact's file name"));
  }
  requireOutputFolder(args.output);
  driver::CompileOptions options = args.options;
  options.inputShapes = parseInputShapes(args.inputShapes);
  auto start = std::chrono::steady_clock::now();
  driver::compileOnnxFile(args.model, args.output, options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "compiled '" << args.model << "' -> '" << args.output << "' in " << seconds
            << " s\n";
}

}  // namespace

void addCompileCommand(CLI::App& app) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App* cmd = app.add_subcommand("compile", "Compile an ONNX model into one shared library");
  cmd->add_option("model", args->model, "The ONNX model file")->required();
  cmd->add_option("-o,--output", args->output, "The artifact to write (.so)")->required();
  cmd->add_option("--target", args->options.target,
                  "Code generation target: \"llvm -mcpu=CPU -mattr=+f1,+f2 -mtriple=T\"; "
                  "default: the host CPU with its features");
  cmd->add_option("--executor", args->options.executor, "Executor: graph")
      ->check(CLI::IsMember({"graph"}))
      ->capture_default_str();
  cmd->add_option("--input-shapes", args->inputShapes,
                  "Shapes for inputs with symbolic dims: \"name:[d0,d1,...] name2:[...]\"");
  cmd->add_option("--model-name", args->options.modelName,
                  "The name the model is created under: lib[NAME](device)")
      ->capture_default_str();
  cmd->add_option("--opt-level", args->options.optLevel,
                  "0: no graph optimisation; 1: fold constants, simplify; 2: + fold batch norm, "
                  "blocked conv layout, packed GEMM weights; 3: + operator fusion (LLVM uses the "
                  "same level)")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  cmd->add_option("--dump-ir", args->options.dumpIrDir,
                  "Write the IR after every pass, the kernels' loop IR and LLVM IR, and their "
                  "schedules (schedules.json) to DIR");
  cmd->add_option("--schedule", args->options.schedulePath,
                  "Override the kernels' default schedules: a file of JSON lines "
                  "{\"workload\": KEY, \"knobs\": {NAME: VALUE}} (the format of "
                  "--dump-ir's schedules.json); workloads it does not name keep their defaults");
  cmd->callback([args] { runCompile(*args); });
}

}  // namespace kiln::cli
