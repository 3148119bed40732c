// The compiler pipeline, top to bottom, in its named phases (compile_phase.h): per model import,
// graph passes, partition, fuse, lower, plan and executor codegen; then one codegen and link for
// every model of the library.
#include "kiln/driver/compile.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>

#include "kiln/codegen/llvm/build_library.h"
#include "kiln/driver/compile_bodies.h"
#include "kiln/driver/context.h"
#include "kiln/driver/executor_codegen.h"
#include "kiln/driver/kernel_pool.h"
#include "kiln/driver/materialize_outputs.h"
#include "kiln/driver/memory_plan_json.h"
#include "kiln/driver/model_signature.h"
#include "kiln/driver/offload_target.h"
#include "kiln/driver/static_header.h"
#include "kiln/driver/target_model.h"
#include "kiln/frontend/onnx/importer.h"
#include "kiln/ir/fused_group.h"
#include "kiln/ir/printer.h"
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

// The kernels' loop IR as --dump-ir's kernels.tir and --compile-to lower write it.
std::string kernelsText(const std::vector<kernel::LoweredKernel>& kernels) {
  std::string text;
  for (const kernel::LoweredKernel& k : kernels) {
    if (k.offload) {
      text += strCat("// ", k.func.name, ": offloaded to backend '", k.offload->backend, "'\n\n");
    } else if (k.runtimeOp) {
      text += strCat("// ", k.func.name, ": executed by the runtime (", k.runtimeOp->op, ")\n\n");
    } else if (k.object) {
      text += strCat("// ", k.func.name, ": an object of backend '", k.object->backend,
                     "', linked in (its function ", k.object->entry, ")\n\n");
    } else {
      text += tir::printPrimFunc(k.func) + "\n";
    }
  }
  return text;
}

std::string schedulesText(const std::vector<kernel::LoweredKernel>& kernels) {
  std::string text;
  for (const kernel::LoweredKernel& k : kernels) {
    if (!k.offload && !k.runtimeOp && !k.object) text += kernel::scheduleRecord(k.schedule) + "\n";
  }
  return text;
}

// One model's part of the library: its container entry and the weights that entry views.
struct ModelPart {
  runtime::ArtifactModel model;
  // saveParams() bytes when embedded (the entry's `params` views them); external weights are
  // written from WEIGHTS straight to their file.
  std::unique_ptr<std::string> params;
  runtime::ParamList weights;  // the tensors, in the executor's order
};

// PART's weights streamed into PATH (complete or not at all), as the library recorded them.
void writeExternalParams(const ModelPart& part, const std::string& path) {
  AtomicFileWriter file(path);
  runtime::ParamsSummary blob = runtime::writeParams(
      part.weights, [&](const void* data, size_t size) { file.write(data, size); });
  KILN_CHECK(blob.size == part.model.paramsSize && blob.checksum == part.model.paramsChecksum,
             "the weights of model '", part.model.name, "' changed while they were written");
  file.commit();
}

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

// What every model of a library shares while it goes through its phases.
struct Library {
  const CompileOptions& options;
  kernel::ScheduleConfig config;
  std::vector<OffloadStep> offloads;
  KernelPool pool;
};

// One model after its phases: its part of the library, or (when options.compileTo stops before
// codegen) the IR of the phase it stopped after, as text or JSON.
struct CompiledModel {
  std::string ir;
  Json irJson;
  ModelPart part;
  std::vector<codegen::EntryFunction> entries;
  std::vector<codegen::ObjectKernel> objects;
  std::vector<ModelOffload> offloads;
};

// The graph-passes, partition and fuse phases, up to options.compileTo.
void runGraphPhases(ir::Graph& graph, const std::string& model, Library& library,
                    const std::string& dumpDir, std::vector<ModelOffload>& offloads) {
  const CompileOptions& options = library.options;
  PassTarget target{library.config.target.lanes, library.offloads, {}};
  target.onOffload = [&](const transform::OffloadRecord& r) { offloads.push_back({model, r}); };
  CompilePhase last = std::min(options.compileTo, CompilePhase::kFuse);
  ir::runPasses(graph, contextOf(options).pipeline().passes(options.optLevel, target, last),
                dumpDir);
}

// The lower phase: every fused group a kernel (control-flow bodies compiled first), kiln's own
// added to the library's pool.
struct LoweredGraph {
  std::vector<ir::FusedGroup> groups;
  std::vector<kernel::LoweredKernel> kernels;
  std::vector<kernel::LoweredKernel> bodyKernels;
};

LoweredGraph lowerGraph(ir::Graph& graph, const std::string& model, Library& library,
                        std::vector<codegen::ObjectKernel>& objects) {
  const CompileOptions& options = library.options;
  // Bodies are compiled without the backends: kiln offloads only from the main graph.
  PassTarget bodyTarget{library.config.target.lanes, {}, {}};
  BodyCompileContext bodyContext{model,
                                 contextOf(options).pipeline().passes(options.optLevel, bodyTarget),
                                 library.config, library.pool};
  std::map<const ir::Node*, CompiledBodies> bodies = compileBodies(graph, bodyContext);
  materializeOutputs(graph);
  LoweredGraph out;
  out.groups = ir::collectGroups(graph);
  out.kernels = lowerAll(out.groups, model, library.config);
  for (size_t i = 0; i < out.kernels.size(); ++i) {
    kernel::LoweredKernel& k = out.kernels[i];
    if (auto it = bodies.find(out.groups[i].nodes.front()); k.runtimeOp && it != bodies.end()) {
      k.runtimeOp->formalInputs = it->second.formalInputs;
      k.runtimeOp->bodies = it->second.bodies;
    }
    if (k.object) {
      objects.push_back({k.func.name, k.object->backend, k.object->object, k.object->entry});
    } else if (!k.offload && !k.runtimeOp) {
      library.pool.add(k);
    }
  }
  out.bodyKernels = std::move(bodyContext.kernels);
  return out;
}

// A shared library's code reaches its data by 32-bit relative offsets, so everything in it must
// lie within 2 GiB; weights beyond what leaves room for the code ship beside it instead.
void checkEmbeddable(const std::string& model, const runtime::ParamList& params) {
  constexpr uint64_t kMaxEmbedded = (uint64_t{1} << 31) - (uint64_t{1} << 28);  // 1.75 GiB
  uint64_t bytes = 0;
  for (const auto& [name, array] : params) bytes += array.nbytes();
  if (bytes > kMaxEmbedded) {
    throw Error(strCat("model '", model, "' has ", bytes,
                       " bytes of weights, but a library can "
                       "embed at most ",
                       kMaxEmbedded, " (its code reaches its data within 2 GiB)",
                       ": compile with --params external, which writes them beside the library "
                       "and maps them when they are loaded"));
  }
}

ModelPart modelPart(const NamedGraph& named, const CompileOptions& options,
                    const transform::MemoryPlan& plan, const std::vector<std::string>& outputNames,
                    ExecutorCode& code) {
  ModelPart part;
  runtime::ArtifactModel& m = part.model;
  m.name = named.name;
  m.executor = options.executor;
  m.signature = modelSignature(*named.graph, plan, outputNames, code.params.size());
  m.metadata = std::move(code.metadata);
  m.externalParams = options.params == "external";
  if (m.externalParams) {  // hashed now, written when the library is (writeExternalParams)
    runtime::ParamsSummary blob = runtime::writeParams(code.params, [](const void*, size_t) {});
    m.paramsSize = blob.size;
    m.paramsChecksum = blob.checksum;
  } else {
    checkEmbeddable(named.name, code.params);
    part.params = std::make_unique<std::string>(runtime::saveParams(code.params));
    m.paramsSize = part.params->size();
    m.paramsChecksum = runtime::paramsChecksum(part.params->data(), part.params->size());
    m.params = *part.params;
  }
  part.weights = std::move(code.params);
  return part;
}

// One model through the phases before codegen, each dumped to DUMP_DIR when set, stopping after
// options.compileTo.
CompiledModel compileModel(const NamedGraph& named, Library& library, const std::string& dumpDir) {
  const CompileOptions& options = library.options;
  const CompilePhase stop = options.compileTo;
  ir::Graph& graph = *named.graph;
  CompiledModel out;
  if (!dumpDir.empty()) makeDirectories(dumpDir);
  std::vector<std::string> outputNames;
  for (const ir::Value* v : graph.outputs()) outputNames.push_back(v->name);
  adoptOps(graph, contextOf(options));
  if (stop > CompilePhase::kImport)
    runGraphPhases(graph, named.name, library, dumpDir, out.offloads);
  if (stop <= CompilePhase::kFuse) {
    out.ir = ir::printGraph(graph);
    return out;
  }

  LoweredGraph lowered = lowerGraph(graph, named.name, library, out.objects);
  std::vector<kernel::LoweredKernel> all = lowered.kernels;
  all.insert(all.end(), lowered.bodyKernels.begin(), lowered.bodyKernels.end());
  if (!dumpDir.empty()) {
    writeFileAtomic(dumpDir + "/kernels.tir", kernelsText(all));
    writeFileAtomic(dumpDir + "/schedules.json", schedulesText(all));
  }
  if (stop == CompilePhase::kLower) {
    out.ir = kernelsText(all);
    return out;
  }

  transform::MemoryPlan plan = transform::planMemory(graph, lowered.groups);
  Json planJson = memoryPlanJson(plan);
  if (!dumpDir.empty()) writeFileAtomic(dumpDir + "/memory_plan.json", planJson.dump(2));
  if (stop == CompilePhase::kPlan) {
    out.irJson = std::move(planJson);
    return out;
  }

  ExecutorCode code = findExecutorCodegen(options.executor)(
      {named.name, graph, lowered.groups, lowered.kernels, plan, outputNames});
  if (!dumpDir.empty()) {
    writeFileAtomic(dumpDir + "/" + options.executor + "_executor.json", code.metadata.dump(2));
  }
  if (stop == CompilePhase::kExecutorCodegen) {
    out.irJson = std::move(code.metadata);
    return out;
  }
  out.entries = std::move(code.entries);
  out.part = modelPart(named, options, plan, outputNames, code);
  return out;
}

// The IR of the phase every model stopped after, as one file: graph IR or loop IR text (each
// model's after a comment line naming it, when there are several), or a JSON object by model.
std::string stoppedIr(const std::vector<NamedGraph>& models,
                      const std::vector<CompiledModel>& compiled) {
  if (!compiled.front().irJson.isNull()) {
    Json byModel;
    for (size_t i = 0; i < models.size(); ++i) byModel[models[i].name] = compiled[i].irJson;
    return byModel.dump(2) + "\n";
  }
  if (models.size() == 1) return compiled.front().ir;
  std::string text;
  for (size_t i = 0; i < models.size(); ++i)
    text += strCat("// ==== model '", models[i].name, "' ====\n", compiled[i].ir, "\n");
  return text;
}

// The codegen and link phases: every model's kernels and entries into one library.
void buildLibrary(std::vector<CompiledModel>& compiled, const codegen::Target& target,
                  Library& library, const std::string& outputPath, CompileResult& result) {
  const CompileOptions& options = library.options;
  codegen::BuildOptions build;
  std::vector<codegen::EntryFunction> entries;
  runtime::Artifact artifact;
  artifact.target = target.toJson();
  for (CompiledModel& m : compiled) {
    for (codegen::EntryFunction& e : m.entries) entries.push_back(std::move(e));
    for (codegen::ObjectKernel& o : m.objects) build.objects.push_back(std::move(o));
    artifact.models.push_back(m.part.model);
  }
  std::vector<tir::PrimFunc> funcs = library.pool.take();
  build.target = target;
  build.optLevel = options.optLevel;
  if (!options.dumpIrDir.empty()) {
    build.dumpLlvmPath = options.dumpIrDir + "/module.ll";
    build.dumpAsmPath = options.dumpIrDir + "/module.s";
  }
  if (options.compileTo == CompilePhase::kCodegen) {
    codegen::writeLlvmIr(funcs, entries, build, outputPath);
    result.files.push_back({outputPath, "LLVM IR after phase 'codegen'"});
    return;
  }
  if (options.emit == "static") {
    std::vector<codegen::WeightTable> tables;
    tables.reserve(compiled.size());
    for (const CompiledModel& m : compiled) tables.push_back(weightTable(m.part));
    codegen::buildStaticLibrary(funcs, entries, tables, build, outputPath);
    std::string header = staticHeaderPath(outputPath);
    writeFileAtomic(header, staticLibraryHeader(artifact.models,
                                                strCat(target.triple, " (cpu ", target.cpu, ")"),
                                                headerGuard(header)));
    result.files.push_back({outputPath, "static library"});
    result.files.push_back({header, "C header"});
    return;
  }
  codegen::buildSharedLibrary(funcs, entries, runtime::serializeArtifact(artifact), build,
                              outputPath);
  result.files.push_back({outputPath, "library"});
  if (options.params != "external") return;
  for (const CompiledModel& m : compiled) {
    std::string path = paramsPath(outputPath, m.part.model.name, compiled.size());
    writeExternalParams(m.part, path);
    result.files.push_back({path, strCat("weights of model '", m.part.model.name, "'")});
  }
}

}  // namespace

const CompileContext& contextOf(const CompileOptions& options) {
  static const auto* kOwn = new CompileContext();  // immutable: kiln's own tables only
  return options.context ? *options.context : *kOwn;
}

std::string paramsPath(const std::string& outputPath, const std::string& model, size_t modelCount) {
  return modelCount == 1 ? outputPath + ".params" : strCat(outputPath, ".", model, ".params");
}

CompileResult compileGraphs(const std::vector<NamedGraph>& models, const std::string& outputPath,
                            const CompileOptions& options) {
  checkOptions(options, namesOf(models));
  CompositeTarget composite = splitTarget(options.target);
  codegen::Target target = composite.codegen.empty() ? codegen::Target::host()
                                                     : codegen::Target::parse(composite.codegen);
  Library library{options, {}, {}, {}};
  library.offloads =
      offloadSteps(contextOf(options), composite.backends, options.backendAttrs, target.triple);
  library.config.target = targetModelOf(target);
  library.config.lowerings = contextOf(options).lowerings();
  if (!options.schedulePath.empty()) {
    library.config.knobs =
        kernel::parseScheduleFile(readTextFile(options.schedulePath), options.schedulePath);
  }

  CompileResult result;
  result.phase = options.compileTo;
  std::vector<CompiledModel> compiled;
  for (const NamedGraph& named : models) {
    std::string dumpDir = options.dumpIrDir;
    if (!dumpDir.empty() && models.size() > 1) dumpDir += "/" + named.name;
    compiled.push_back(compileModel(named, library, dumpDir));
    for (ModelOffload& o : compiled.back().offloads) result.offloads.push_back(std::move(o));
  }
  result.sharedKernels = library.pool.reused();
  result.kernels = library.pool.size();
  if (options.compileTo < CompilePhase::kCodegen) {
    writeFileAtomic(outputPath, stoppedIr(models, compiled));
    result.files.push_back(
        {outputPath, strCat("IR after phase '", phaseName(options.compileTo), "'")});
    return result;
  }
  buildLibrary(compiled, target, library, outputPath, result);
  return result;
}

CompileResult compileOnnxFiles(const std::vector<std::string>& paths,
                               const std::vector<std::string>& names, const std::string& outputPath,
                               const CompileOptions& options) {
  std::vector<std::string> modelNames = names;
  if (modelNames.empty() && paths.size() == 1) modelNames = {options.modelName};
  if (modelNames.size() != paths.size()) {
    throw Error(strCat(paths.size(), " models and ", names.size(),
                       " --model-name options: give one name per model (in the same order), or "
                       "none for a single model"));
  }
  std::vector<OnnxModel> models;
  for (size_t i = 0; i < paths.size(); ++i) models.push_back({modelNames[i], paths[i], {}, {}});
  return compileOnnxModels(models, outputPath, options);
}

namespace {

// Every bound must size a symbol some model's inputs use: a bound on nothing is a misspelt name.
void checkBoundsUsed(const opdef::DimBounds& bounds, const std::vector<NamedGraph>& models) {
  std::set<std::string> used;
  for (const NamedGraph& m : models) {
    for (const auto& [symbol, range] : m.graph->dimBounds) used.insert(symbol);
  }
  for (const auto& [symbol, range] : bounds) {
    if (used.count(symbol) != 0) continue;
    std::string names;
    for (const std::string& u : used) names += (names.empty() ? "" : ", ") + u;
    throw Error(strCat("--dim-bounds bounds '", symbol,
                       "', which no input's dims use; the inputs' symbolic dims are: ",
                       names.empty() ? "(none)" : names));
  }
}

}  // namespace

CompileResult compileOnnxModels(const std::vector<OnnxModel>& models, const std::string& outputPath,
                                const CompileOptions& options) {
  checkOptions(options, namesOf(models));  // before importing anything
  std::vector<std::unique_ptr<ir::Graph>> graphs;
  std::vector<NamedGraph> named;
  for (const OnnxModel& m : models) {
    frontend::onnx::ImportOptions importOptions;
    importOptions.inputShapes = options.inputShapes;
    for (const auto& [input, shape] : m.inputShapes) importOptions.inputShapes[input] = shape;
    importOptions.dimBounds = options.dimBounds;
    importOptions.ops = contextOf(options).ops();
    graphs.push_back(m.path.empty()
                         ? frontend::onnx::importOnnx(m.bytes, importOptions,
                                                      strCat("model '", m.name, "' (in memory)"))
                         : frontend::onnx::importOnnx(m.path, importOptions));
    named.push_back({m.name, graphs.back().get()});
  }
  checkBoundsUsed(options.dimBounds, named);
  return compileGraphs(named, outputPath, options);
}

CompileResult compileOnnxFile(const std::string& onnxPath, const std::string& outputPath,
                              const CompileOptions& options) {
  return compileOnnxFiles({onnxPath}, {}, outputPath, options);
}

CompileResult compileGraph(ir::Graph& graph, const std::string& outputPath,
                           const CompileOptions& options) {
  return compileGraphs({{options.modelName, &graph}}, outputPath, options);
}

}  // namespace kiln::driver
