// The compiler pipeline, top to bottom: per model import, graph passes, lowering, memory plan and
// executor code; then one code generation and link for every model of the library.
#include "kiln/driver/compile.h"

#include <cctype>
#include <memory>
#include <set>

#include "kiln/codegen/llvm/build_library.h"
#include "kiln/driver/compile_bodies.h"
#include "kiln/driver/context.h"
#include "kiln/driver/executor_codegen.h"
#include "kiln/driver/kernel_pool.h"
#include "kiln/driver/materialize_outputs.h"
#include "kiln/driver/model_signature.h"
#include "kiln/driver/offload_target.h"
#include "kiln/driver/static_header.h"
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

// Kernel symbols are kiln_<model>__<group>: a model name without "__" and not ending in '_'
// makes the first "__" the separator, so two models' symbols never clash.
void checkModelName(const std::string& name) {
  bool ok = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) &&
            name.back() != '_' && name.find("__") == std::string::npos;
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) {
    throw Error(strCat("--model-name '", name,
                       "' is not valid; expected letters, digits and single '_' (not first or "
                       "last), starting with a letter"));
  }
}

// The names of MODELS (NamedGraphs or OnnxModels), in order.
template <typename Named>
std::vector<std::string> namesOf(const std::vector<Named>& models) {
  std::vector<std::string> names;
  names.reserve(models.size());
  for (const Named& m : models) names.push_back(m.name);
  return names;
}

void checkOptions(const CompileOptions& options, const std::vector<std::string>& names) {
  findExecutorCodegen(options.executor);
  if (options.params != "embedded" && options.params != "external") {
    throw Error(
        strCat("--params '", options.params, "' is not known; expected 'embedded' or 'external'"));
  }
  if (options.emit != "shared" && options.emit != "static") {
    throw Error(strCat("--emit '", options.emit, "' is not known; expected 'shared' or 'static'"));
  }
  if (options.emit == "static" && (options.executor != "aot" || options.params != "embedded")) {
    throw Error(strCat("--emit static needs --executor aot and embedded weights (got --executor ",
                       options.executor, ", --params ", options.params,
                       "): a program linked without the kiln runtime cannot interpret a graph or "
                       "load a weights file"));
  }
  if (names.empty()) throw Error("no model to compile");
  std::set<std::string> seen;
  for (const std::string& name : names) {
    checkModelName(name);
    if (!seen.insert(name).second) {
      throw Error(strCat("--model-name '", name, "' is given to two models; each needs its own"));
    }
  }
}

std::vector<kernel::LoweredKernel> lowerAll(const std::vector<ir::FusedGroup>& groups,
                                            const std::string& model,
                                            const kernel::ScheduleConfig& config) {
  std::vector<kernel::LoweredKernel> kernels;
  kernels.reserve(groups.size());
  for (const ir::FusedGroup& group : groups) {
    std::string symbol = strCat("kiln_", model, "__", group.name);
    kernels.push_back(kernel::lowerGroup(group, symbol, config));
  }
  return kernels;
}

void dumpKernels(const std::string& dir, const std::vector<kernel::LoweredKernel>& kernels,
                 const std::string& executor, const Json& metadata) {
  std::string text, schedules;
  for (const kernel::LoweredKernel& k : kernels) {
    if (k.offload) {
      text += strCat("// ", k.func.name, ": offloaded to backend '", k.offload->backend, "'\n\n");
      continue;
    }
    if (k.runtimeOp) {
      text += strCat("// ", k.func.name, ": executed by the runtime (", k.runtimeOp->op, ")\n\n");
      continue;
    }
    if (k.object) {
      text += strCat("// ", k.func.name, ": an object of backend '", k.object->backend,
                     "', linked in (its function ", k.object->entry, ")\n\n");
      continue;
    }
    text += tir::printPrimFunc(k.func) + "\n";
    schedules += kernel::scheduleRecord(k.schedule) + "\n";
  }
  writeFileAtomic(dir + "/kernels.tir", text);
  writeFileAtomic(dir + "/schedules.json", schedules);
  writeFileAtomic(dir + "/" + executor + "_executor.json", metadata.dump(2));
}

// One model's part of the library: its container entry and the weights that entry views.
struct ModelPart {
  runtime::ArtifactModel model;
  std::unique_ptr<std::string> params;  // saveParams() bytes; the entry's `params` views them
  runtime::ParamList weights;           // the same tensors, in the executor's order
};

// A model's weights as one aligned block and a pointer table, for a static library.
codegen::WeightTable weightTable(const ModelPart& part) {
  codegen::WeightTable t;
  t.weightsSymbol = strCat("kiln_", part.model.name, "_weights");
  t.tableSymbol = strCat("kiln_", part.model.name, "_params");
  for (const auto& [name, array] : part.weights) {
    t.bytes.resize((t.bytes.size() + 63) / 64 * 64);
    t.offsets.push_back(t.bytes.size());
    t.bytes.append(static_cast<const char*>(array.data()), array.nbytes());
  }
  return t;
}

std::string headerGuard(const std::string& headerPath) {
  std::string stem = headerPath.substr(headerPath.find_last_of('/') + 1);
  std::string guard = "KILN_";
  for (char c : stem) {
    guard += std::isalnum(static_cast<unsigned char>(c))
                 ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                 : '_';
  }
  return guard + "_";
}

// Passes may create any op of the context, so the graph must look ops up in its registry.
void adoptOps(ir::Graph& graph, const CompileContext& context) {
  if (graph.opsPtr() == context.ops()) return;
  if (graph.opsPtr() != ir::OpRegistry::builtin()) {
    throw Error(strCat("graph '", graph.name,
                       "' was made with the ops of another compile context; import or parse it "
                       "with the ops() of the context it is compiled with"));
  }
  graph.setOps(context.ops());
}

ModelPart compileModel(const NamedGraph& named, const CompileOptions& options,
                       const kernel::ScheduleConfig& config,
                       const std::vector<OffloadStep>& offloads, const std::string& dumpDir,
                       KernelPool& pool, std::vector<codegen::EntryFunction>& entries,
                       std::vector<codegen::ObjectKernel>& objects) {
  ir::Graph& graph = *named.graph;
  if (!dumpDir.empty()) makeDirectories(dumpDir);
  std::vector<std::string> outputNames;
  for (const ir::Value* v : graph.outputs()) outputNames.push_back(v->name);
  const CompileContext& context = contextOf(options);
  adoptOps(graph, context);
  PassTarget passTarget{config.target.lanes, offloads, {}};
  if (options.onOffload) {
    passTarget.onOffload = [&](const transform::OffloadRecord& r) {
      options.onOffload(named.name, r);
    };
  }
  ir::runPasses(graph, context.pipeline().passes(options.optLevel, passTarget), dumpDir);
  // Bodies are compiled without the backends: kiln offloads only from the main graph.
  BodyCompileContext bodyContext{
      named.name, context.pipeline().passes(options.optLevel, {config.target.lanes, {}, {}}),
      config, pool};
  std::map<const ir::Node*, CompiledBodies> bodies = compileBodies(graph, bodyContext);
  materializeOutputs(graph);
  std::vector<ir::FusedGroup> groups = ir::collectGroups(graph);
  std::vector<kernel::LoweredKernel> kernels = lowerAll(groups, named.name, config);
  for (size_t i = 0; i < kernels.size(); ++i) {
    kernel::LoweredKernel& k = kernels[i];
    if (auto it = bodies.find(groups[i].nodes.front()); k.runtimeOp && it != bodies.end()) {
      k.runtimeOp->formalInputs = it->second.formalInputs;
      k.runtimeOp->bodies = it->second.bodies;
    }
    if (k.object) {
      objects.push_back({k.func.name, k.object->backend, k.object->object, k.object->entry});
    } else if (!k.offload && !k.runtimeOp) {
      pool.add(k);
    }
  }
  transform::MemoryPlan plan = transform::planMemory(graph, groups);

  LoweredModel lowered{named.name, graph, groups, kernels, plan, outputNames};
  ExecutorCode code = findExecutorCodegen(options.executor)(lowered);
  if (!dumpDir.empty()) {
    std::vector<kernel::LoweredKernel> all = kernels;
    all.insert(all.end(), bodyContext.kernels.begin(), bodyContext.kernels.end());
    dumpKernels(dumpDir, all, options.executor, code.metadata);
  }
  for (codegen::EntryFunction& e : code.entries) entries.push_back(std::move(e));

  ModelPart part;
  part.params = std::make_unique<std::string>(runtime::saveParams(code.params));
  runtime::ArtifactModel& m = part.model;
  m.name = named.name;
  m.executor = options.executor;
  m.signature = modelSignature(graph, plan, outputNames, code.params.size());
  m.metadata = std::move(code.metadata);
  m.externalParams = options.params == "external";
  m.paramsSize = part.params->size();
  m.paramsChecksum = runtime::paramsChecksum(part.params->data(), part.params->size());
  m.params = *part.params;
  part.weights = std::move(code.params);
  return part;
}

}  // namespace

const CompileContext& contextOf(const CompileOptions& options) {
  static const auto* kOwn = new CompileContext();  // immutable: kiln's own tables only
  return options.context ? *options.context : *kOwn;
}

std::string paramsPath(const std::string& outputPath, const std::string& model, size_t modelCount) {
  return modelCount == 1 ? outputPath + ".params" : strCat(outputPath, ".", model, ".params");
}

void compileGraphs(const std::vector<NamedGraph>& models, const std::string& outputPath,
                   const CompileOptions& options) {
  checkOptions(options, namesOf(models));
  CompositeTarget composite = splitTarget(options.target);
  codegen::Target target = composite.codegen.empty() ? codegen::Target::host()
                                                     : codegen::Target::parse(composite.codegen);
  std::vector<OffloadStep> offloads =
      offloadSteps(contextOf(options), composite.backends, options.backendAttrs, target.triple);
  kernel::ScheduleConfig config;
  config.target = targetModelOf(target);
  config.lowerings = contextOf(options).lowerings();
  if (!options.schedulePath.empty()) {
    config.knobs =
        kernel::parseScheduleFile(readTextFile(options.schedulePath), options.schedulePath);
  }

  KernelPool pool;
  std::vector<codegen::EntryFunction> entries;
  codegen::BuildOptions build;
  std::vector<ModelPart> parts;
  runtime::Artifact artifact;
  artifact.target = target.toJson();
  for (const NamedGraph& named : models) {
    std::string dumpDir = options.dumpIrDir;
    if (!dumpDir.empty() && models.size() > 1) dumpDir += "/" + named.name;
    parts.push_back(
        compileModel(named, options, config, offloads, dumpDir, pool, entries, build.objects));
    artifact.models.push_back(parts.back().model);
  }

  std::vector<tir::PrimFunc> funcs = pool.take();
  build.target = target;
  build.optLevel = options.optLevel;
  if (!options.dumpIrDir.empty()) {
    build.dumpLlvmPath = options.dumpIrDir + "/module.ll";
    build.dumpAsmPath = options.dumpIrDir + "/module.s";
  }
  if (options.emit == "static") {
    std::vector<codegen::WeightTable> tables;
    tables.reserve(parts.size());
    for (const ModelPart& part : parts) tables.push_back(weightTable(part));
    codegen::buildStaticLibrary(funcs, entries, tables, build, outputPath);
    std::string header = staticHeaderPath(outputPath);
    writeFileAtomic(header, staticLibraryHeader(artifact.models,
                                                strCat(target.triple, " (cpu ", target.cpu, ")"),
                                                headerGuard(header)));
    return;
  }
  codegen::buildSharedLibrary(funcs, entries, runtime::serializeArtifact(artifact), build,
                              outputPath);
  if (options.params == "external") {
    for (const ModelPart& part : parts)
      writeFileAtomic(paramsPath(outputPath, part.model.name, parts.size()), *part.params);
  }
}

void compileOnnxFiles(const std::vector<std::string>& paths, const std::vector<std::string>& names,
                      const std::string& outputPath, const CompileOptions& options) {
  std::vector<std::string> modelNames = names;
  if (modelNames.empty() && paths.size() == 1) modelNames = {options.modelName};
  if (modelNames.size() != paths.size()) {
    throw Error(strCat(paths.size(), " models and ", names.size(),
                       " --model-name options: give one name per model (in the same order), or "
                       "none for a single model"));
  }
  std::vector<OnnxModel> models;
  for (size_t i = 0; i < paths.size(); ++i) models.push_back({modelNames[i], paths[i], {}, {}});
  compileOnnxModels(models, outputPath, options);
}

void compileOnnxModels(const std::vector<OnnxModel>& models, const std::string& outputPath,
                       const CompileOptions& options) {
  checkOptions(options, namesOf(models));  // before importing anything
  std::vector<std::unique_ptr<ir::Graph>> graphs;
  std::vector<NamedGraph> named;
  for (const OnnxModel& m : models) {
    frontend::onnx::ImportOptions importOptions;
    importOptions.inputShapes = options.inputShapes;
    for (const auto& [input, shape] : m.inputShapes) importOptions.inputShapes[input] = shape;
    importOptions.ops = contextOf(options).ops();
    graphs.push_back(m.path.empty()
                         ? frontend::onnx::importOnnx(m.bytes, importOptions,
                                                      strCat("model '", m.name, "' (in memory)"))
                         : frontend::onnx::importOnnx(m.path, importOptions));
    named.push_back({m.name, graphs.back().get()});
  }
  compileGraphs(named, outputPath, options);
}

void compileOnnxFile(const std::string& onnxPath, const std::string& outputPath,
                     const CompileOptions& options) {
  compileOnnxFiles({onnxPath}, {}, outputPath, options);
}

void compileGraph(ir::Graph& graph, const std::string& outputPath, const CompileOptions& options) {
  compileGraphs({{options.modelName, &graph}}, outputPath, options);
}

}  // namespace kiln::driver
