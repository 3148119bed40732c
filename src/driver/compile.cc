// The compiler pipeline, top to bottom: import, graph passes, lowering, memory plan, codegen.
#include "kiln/driver/compile.h"

#include <cctype>

#include "kiln/codegen/llvm/build_library.h"
#include "kiln/driver/graph_metadata.h"
#include "kiln/driver/materialize_outputs.h"
#include "kiln/driver/pipeline.h"
#include "kiln/driver/target_model.h"
#include "kiln/frontend/onnx/importer.h"
#include "kiln/ir/fused_group.h"
#include "kiln/kernel/lower.h"
#include "kiln/runtime/artifact.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "kiln/tir/printer.h"
#include "kiln/transform/plan_memory.h"

namespace kiln::driver {
namespace {

void checkOptions(const CompileOptions& options) {
  if (options.executor != "graph") {
    throw Error(strCat("--executor '", options.executor,
                       "' is not supported; expected 'graph' (the AOT executor comes later)"));
  }
  // Kernel symbols are kiln_<model>__<group>: a model name without "__" and not ending in '_'
  // makes the first "__" the separator, so two models' symbols never clash.
  const std::string& name = options.modelName;
  bool ok = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) &&
            name.back() != '_' && name.find("__") == std::string::npos;
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) {
    throw Error(strCat("--model-name '", name,
                       "' is not valid; expected letters, digits and single '_' (not first or "
                       "last), starting with a letter"));
  }
}

std::vector<kernel::LoweredKernel> lowerAll(const std::vector<ir::FusedGroup>& groups,
                                            const CompileOptions& options,
                                            const kernel::ScheduleConfig& config) {
  std::vector<kernel::LoweredKernel> kernels;
  kernels.reserve(groups.size());
  for (const ir::FusedGroup& group : groups) {
    std::string symbol = strCat("kiln_", options.modelName, "__", group.name);
    kernels.push_back(kernel::lowerGroup(group, symbol, config));
  }
  return kernels;
}

void dumpKernels(const std::string& dir, const std::vector<kernel::LoweredKernel>& kernels,
                 const Json& metadata) {
  std::string text, schedules;
  for (const kernel::LoweredKernel& k : kernels) {
    text += tir::printPrimFunc(k.func) + "\n";
    schedules += kernel::scheduleRecord(k.schedule) + "\n";
  }
  writeFileAtomic(dir + "/kernels.tir", text);
  writeFileAtomic(dir + "/schedules.json", schedules);
  writeFileAtomic(dir + "/graph_executor.json", metadata.dump(2));
}

}  // namespace

void compileGraph(ir::Graph& graph, const std::string& outputPath, const CompileOptions& options) {
  checkOptions(options);
  codegen::Target target =
      options.target.empty() ? codegen::Target::host() : codegen::Target::parse(options.target);
  if (!options.dumpIrDir.empty()) makeDirectories(options.dumpIrDir);

  std::vector<std::string> outputNames;
  for (const ir::Value* v : graph.outputs()) outputNames.push_back(v->name);
  kernel::ScheduleConfig config;
  config.target = targetModelOf(target);
  if (!options.schedulePath.empty()) {
    config.knobs =
        kernel::parseScheduleFile(readTextFile(options.schedulePath), options.schedulePath);
  }
  ir::runPasses(graph, buildPipeline(options.optLevel, config.target.lanes), options.dumpIrDir);
  materializeOutputs(graph);
  std::vector<ir::FusedGroup> groups = ir::collectGroups(graph);

  std::vector<kernel::LoweredKernel> kernels = lowerAll(groups, options, config);
  transform::MemoryPlan plan = transform::planMemory(graph, groups);
  GraphExecutorModel model = buildGraphMetadata(graph, groups, kernels, plan, outputNames);
  if (!options.dumpIrDir.empty()) dumpKernels(options.dumpIrDir, kernels, model.metadata);

  runtime::Artifact artifact;
  artifact.target = target.toJson();
  artifact.models.push_back(
      {options.modelName, "graph", std::move(model.metadata), runtime::saveParams(model.params)});

  std::vector<tir::PrimFunc> funcs;
  funcs.reserve(kernels.size());
  for (kernel::LoweredKernel& k : kernels) funcs.push_back(std::move(k.func));
  codegen::BuildOptions build;
  build.target = target;
  build.optLevel = options.optLevel;
  if (!options.dumpIrDir.empty()) {
    build.dumpLlvmPath = options.dumpIrDir + "/module.ll";
    build.dumpAsmPath = options.dumpIrDir + "/module.s";
  }
  codegen::buildSharedLibrary(funcs, runtime::serializeArtifact(artifact), build, outputPath);
}

void compileOnnxFile(const std::string& onnxPath, const std::string& outputPath,
                     const CompileOptions& options) {
  checkOptions(options);
  frontend::onnx::ImportOptions importOptions;
  importOptions.inputShapes = options.inputShapes;
  std::unique_ptr<ir::Graph> graph = frontend::onnx::importOnnx(onnxPath, importOptions);
  compileGraph(*graph, outputPath, options);
}

}  // namespace kiln::driver
