// `kiln compile MODEL.onnx -o MODEL.so`: the compiler driver behind a command line.
#include <chrono>
#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "extension_options.h"
#include "input_shapes.h"
#include "kiln/driver/compile.h"
#include "kiln/driver/compile_phase.h"
#include "kiln/driver/executor_codegen.h"
#include "kiln/driver/offload_target.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "path_clash.h"

namespace kiln::cli {
namespace {

struct CompileArgs {
  std::vector<std::string> models, modelNames;
  std::string output, inputShapes, dimBounds;
  driver::CompileOptions options;
  std::shared_ptr<driver::BackendAttrs> backendAttrs = std::make_shared<driver::BackendAttrs>();
  std::string compileTo = "link";
  bool dumpOffloads = false;
};

// --dump-offloads: which nodes went to which backend, one partition per line.
void printOffloads(const std::vector<driver::ModelOffload>& offloads,
                   const driver::CompileOptions& options) {
  std::vector<std::string> backends = driver::splitTarget(options.target).backends;
  if (offloads.empty()) {
    std::cout << (backends.empty()
                      ? "offloads: none (--target names no backend; llvm compiles every node)\n"
                      : "offloads: none (no pattern of the backends in --target matched)\n");
    return;
  }
  size_t nodes = 0;
  std::cout << "offloads:\n";
  for (const driver::ModelOffload& o : offloads) {
    std::string chain;
    for (size_t i = 0; i < o.record.nodes.size(); ++i) {
      chain += strCat(i == 0 ? "" : " -> ", o.record.ops[i], " '", o.record.nodes[i], "'");
    }
    nodes += o.record.nodes.size();
    std::cout << "  " << o.model << ": " << o.record.backend << " [" << o.record.pattern << "] "
              << chain << (o.record.linked ? " (code linked into the artifact)" : "") << "\n";
  }
  std::cout << offloads.size() << (offloads.size() == 1 ? " partition (" : " partitions (") << nodes
            << " nodes) offloaded; llvm compiles the rest\n";
}

void runCompile(const CompileArgs& args) {
  for (const std::string& model : args.models) {
    if (!fileExists(model)) throw Error(strCat("model file '", model, "' does not exist"));
    refuseOverwrite("-o", args.output, "the model", model);
    refuseOverwrite("--dump-ir", args.options.dumpIrDir, "the model", model);
  }
  if (args.modelNames.size() > 1 || args.models.size() > 1) {
    if (args.modelNames.size() != args.models.size()) {
      throw UsageError(strCat(args.models.size(), " models and ", args.modelNames.size(),
                              " --model-name options: a library of several models needs one "
                              "--model-name per model, in the same order"));
    }
  }
  if (isDirectory(args.output)) {
    throw UsageError(
        strCat("-o '", args.output, "' is a folder; expected the artifact's file name"));
  }
  requireOutputFolder(args.output);
  driver::CompileOptions options = args.options;
  options.inputShapes = parseInputShapes(args.inputShapes);
  options.dimBounds = parseDimBoundsOption(args.dimBounds);
  options.backendAttrs = *args.backendAttrs;
  options.compileTo = driver::parseCompilePhase(args.compileTo);
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> names = args.modelNames;
  if (args.models.size() == 1) {
    options.modelName = names.empty() ? options.modelName : names[0];
    names.clear();
  }
  driver::CompileResult result = driver::compileOnnxFiles(args.models, names, args.output, options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string models;
  for (const std::string& m : args.models)
    models += strCat(models.empty() ? "" : ", ", "'", m, "'");
  std::cout << "compiled " << models << " -> '" << args.output << "' in " << seconds << " s";
  if (result.phase != driver::CompilePhase::kLink) {
    std::cout << " (stopped after phase '" << driver::phaseName(result.phase) << "')";
  }
  std::cout << "\n";
  if (args.dumpOffloads && result.phase >= driver::CompilePhase::kPartition)
    printOffloads(result.offloads, options);
  for (size_t i = 1; i < result.files.size(); ++i)
    std::cout << result.files[i].what << " -> '" << result.files[i].path << "'\n";
}

}  // namespace

void addCompileCommand(CLI::App& app, std::shared_ptr<const driver::CompileContext> context) {
  auto args = std::make_shared<CompileArgs>();
  args->options.context = std::move(context);
  CLI::App* cmd = app.add_subcommand("compile", "Compile ONNX models into one library");
  cmd->add_option("models", args->models,
                  "The ONNX model files; several go into one library, each under its own "
                  "--model-name")
      ->required();
  cmd->add_option("-o,--output", args->output,
                  "The library to write (.so; .a with --emit static), or with --compile-to the "
                  "IR of that phase")
      ->required();
  cmd->add_option("--target", args->options.target,
                  "Code generation target: \"llvm -mcpu=CPU -mattr=+f1,+f2 -mtriple=T\", "
                  "optionally after offload backends of the loaded extensions, which take over "
                  "the parts of the model they support in the order named: \"vanilla,llvm "
                  "-mcpu=...\"; default: the host CPU with its features");
  addTargetAttrOptions(cmd, *args->options.context, args->backendAttrs);
  cmd->add_flag("--dump-offloads", args->dumpOffloads,
                "Print which nodes each offload backend took over (the rest is compiled by llvm)");
  std::vector<std::string> executors;
  for (const driver::ExecutorCodegenKind& kind : driver::executorCodegens())
    executors.push_back(kind.name);
  cmd->add_option("--executor", args->options.executor,
                  "How the runtime runs the model: graph (kernels called in the order the "
                  "library's metadata lists them) or aot (one generated entry function per model "
                  "calls them; nothing is interpreted at run time)")
      ->check(CLI::IsMember(executors))
      ->capture_default_str();
  cmd->add_option("--emit", args->options.emit,
                  "What to write: shared (a library for the kiln runtime) or static (with "
                  "--executor aot: a static library OUTPUT plus a C header, OUTPUT without .a "
                  "plus .h, for programs linked without the runtime)")
      ->check(CLI::IsMember({"shared", "static"}))
      ->capture_default_str();
  cmd->add_option("--params", args->options.params,
                  "Where the weights go: embedded (in the library) or external (beside it, in "
                  "OUTPUT.params, or OUTPUT.MODEL.params for several models; load them with "
                  "kiln run --params)")
      ->check(CLI::IsMember({"embedded", "external"}))
      ->capture_default_str();
  cmd->add_option("--input-shapes", args->inputShapes,
                  "Shapes for inputs with symbolic dims: \"name:[d0,d1,...] name2:[...]\"; a "
                  "dim is a size or a symbol bounded by --dim-bounds (\"input_ids:[1,seq]\")");
  cmd->add_option("--dim-bounds", args->dimBounds,
                  "Sizes the inputs' symbolic dims may take: \"seq<=1024, 1<=batch<=8\" (the "
                  "minimum defaults to 0). Symbols come from the model's named dims or "
                  "--input-shapes; one library serves every size within the bounds, its memory "
                  "laid out for the largest");
  cmd->add_option("--model-name", args->modelNames,
                  "The name each model is created under: lib[NAME](device); repeat it once per "
                  "model, in order (default: \"default\" for a single model)");
  cmd->add_option("--opt-level", args->options.optLevel,
                  "0: no graph optimisation; 1: fold constants, simplify, 3-D and higher "
                  "convolutions as 2-D ones; 2: + fold batch norm, "
                  "blocked conv layout, packed GEMM weights; 3: + operator fusion (LLVM uses the "
                  "same level)")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  cmd->add_option("--dump-ir", args->options.dumpIrDir,
                  "Write the IR after every pass, the kernels' loop IR and LLVM IR, and their "
                  "schedules (schedules.json) to DIR");
  std::vector<std::string> phases;
  for (driver::CompilePhase p : driver::compilePhases()) phases.push_back(driver::phaseName(p));
  cmd->add_option("--compile-to", args->compileTo,
                  strCat("Stop after this phase and write its IR to -o instead of a library: ",
                         driver::phaseNames(),
                         " (import to fuse: graph IR; lower: the kernels' loop IR; plan: the "
                         "memory plan, JSON; executor-codegen: the executor's metadata, JSON; "
                         "codegen: LLVM IR)"))
      ->check(CLI::IsMember(phases))
      ->capture_default_str();
  cmd->add_option("--schedule", args->options.schedulePath,
                  "Override the kernels' default schedules: a file of JSON lines "
                  "{\"workload\": KEY, \"knobs\": {NAME: VALUE}} (the format of "
                  "--dump-ir's schedules.json); workloads it does not name keep their defaults");
  cmd->callback([args] { runCompile(*args); });
}

}  // namespace kiln::cli
