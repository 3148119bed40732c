// The compiler's entry points: ONNX files or graphs in, one shared-library artifact out.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/driver/compile_phase.h"
#include "kiln/ir/graph.h"
#include "kiln/opdef/dim.h"
#include "kiln/transform/partition.h"

namespace kiln::driver {

class CompileContext;

struct CompileOptions {
  // The ops, lowerings and passes to compile with; null: kiln's own only.
  std::shared_ptr<const CompileContext> context;
  // "" = the host CPU; else "llvm -mcpu=... -mattr=...", optionally after offload backends:
  // "vanilla,llvm -mcpu=..." (offload_target.h).
  std::string target;
  // Values of the offload backends' target attributes, by backend, then attribute name.
  std::map<std::string, std::map<std::string, std::string>> backendAttrs;
  std::string executor = "graph";  // a kind of executorCodegens(): "graph"
  // Input shapes for symbolic or overridden dims: each dim a size or a symbol bounded in dimBounds.
  std::map<std::string, opdef::DimList> inputShapes;
  // The sizes each symbol of the inputs' dims may take ("seq" from 0 to 1024): such dims are sized
  // at run time, and the memory plan is laid out for their largest sizes.
  opdef::DimBounds dimBounds;
  std::string modelName = "default";  // the single-model entry points' model name
  int optLevel = 3;                   // 0: no graph optimisation, LLVM -O0; 3: everything
  std::string dumpIrDir;              // when set, the IR after every pass is written here
  // A schedule file (JSON lines of {"workload", "knobs"}) overriding the analytical defaults of
  // the kernels whose workloads it names; --dump-ir writes the chosen ones as schedules.json.
  std::string schedulePath;
  // "embedded": the weights go into the library; "external": into paramsPath(output, model, n)
  // beside it, and the library records their checksum.
  std::string params = "embedded";
  // "shared": one shared library for the kiln runtime. "static" (with executor "aot"): a static
  // library holding kernels, entry functions and weights, and a C header beside it
  // (staticHeaderPath), for programs that link the model without the runtime.
  std::string emit = "shared";
  // The last phase to run: before kLink, the output file holds that phase's IR instead of a
  // library (the graph IR text, the kernels' loop IR, the memory plan or executor metadata as a
  // JSON object by model name, or LLVM IR).
  CompilePhase compileTo = CompilePhase::kLink;
};

// A chain of nodes an offload backend took over, in the model named MODEL.
struct ModelOffload {
  std::string model;
  transform::OffloadRecord record;
};

// A file a compilation wrote.
struct WrittenFile {
  std::string path;
  std::string what;  // "library", "C header", "weights of model 'm'", "IR after phase 'lower'"
};

// What a compilation did.
struct CompileResult {
  CompilePhase phase = CompilePhase::kLink;  // the last phase run
  std::vector<WrittenFile> files;            // the output first, then what was written beside it
  std::vector<ModelOffload> offloads;        // in the order the backends took them
  size_t kernels = 0;        // distinct kernels compiled by llvm (from the lower phase on)
  size_t sharedKernels = 0;  // kernels identical to another, sharing its code
};

struct NamedGraph {
  std::string name;  // what lib[NAME](device) creates
  ir::Graph* graph;
};

// The context OPTIONS compile with (OPTIONS.context, or a shared one holding kiln's own tables).
const CompileContext& contextOf(const CompileOptions& options);

// Where --params external writes a model's weights: OUTPUT.params for a library of one model,
// OUTPUT.MODEL.params when it holds several.
std::string paramsPath(const std::string& outputPath, const std::string& model, size_t modelCount);

// Compiles every model into one library (written atomically), or up to options.compileTo. Kernels
// identical between or within models are emitted once. A graph on the builtin op registry is moved
// to the context's (which holds all of its ops); a graph made with another context's registry is
// refused. Throws kiln::Error for user-caused problems.
CompileResult compileGraphs(const std::vector<NamedGraph>& models, const std::string& outputPath,
                            const CompileOptions& options);
// One ONNX model of a library: a file, or a serialized ModelProto held in memory.
struct OnnxModel {
  std::string name;            // what lib[NAME](device) creates
  std::string path;            // the model file; empty when BYTES hold the model
  std::vector<uint8_t> bytes;  // a serialized ModelProto, read when PATH is empty
  // This model's input shapes, over (and in place of same-named entries of) options.inputShapes.
  std::map<std::string, opdef::DimList> inputShapes;
};

// Imports every model (in order; an error names the model) and compiles them into one library.
CompileResult compileOnnxModels(const std::vector<OnnxModel>& models, const std::string& outputPath,
                                const CompileOptions& options);
// ONNX files: NAMES[i] names PATHS[i] (empty NAMES: one model, named options.modelName).
CompileResult compileOnnxFiles(const std::vector<std::string>& paths,
                               const std::vector<std::string>& names, const std::string& outputPath,
                               const CompileOptions& options);

// One model named options.modelName.
CompileResult compileOnnxFile(const std::string& onnxPath, const std::string& outputPath,
                              const CompileOptions& options);
CompileResult compileGraph(ir::Graph& graph, const std::string& outputPath,
                           const CompileOptions& options);

}  // namespace kiln::driver
