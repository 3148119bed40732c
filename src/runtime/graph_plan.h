// The graph executor's validated view of its metadata, shared read-only by a model's factory and
// all its executors, so kernels are resolved and the plan is checked once per model.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cache_layout.h"
#include "kiln/runtime/backend_api.h"
#include "kiln/runtime/graph_executor.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/runtime_op.h"
#include "kiln/runtime/shared_library.h"
#include "kiln/runtime/value_kind.h"
#include "offload_runtimes.h"
#include "symbolic_dims.h"

namespace kiln::runtime {

struct GraphTensor {
  std::string name;
  Shape shape;
  DataType dtype;
  int64_t storage = -1;  // -1: a parameter; -2: sized at run time (a dim of SHAPE is -1)
  size_t offset = 0;
  size_t nbytes = 0;
  // A sequence or optional (storage -2): SHAPE and DTYPE are its tensors', UNRANKED says their
  // rank is not known.
  ValueKind kind = ValueKind::kTensor;
  bool unranked = false;
  // Empty, or per dim its size in the plan's symbols (an input's symbolic dims are single
  // symbols, which its given shape sizes).
  std::vector<SymbolicDim> symbolicDims;
  // For a tensor with symbolic dims placed in a storage: its shape at the symbols' bounds, which
  // its storage holds; each run gives it the shape its dims evaluate to.
  Shape capacity;
  // A key/value cache's past or present written in place (cache_layout.h): its matrices lie
  // LAYOUT.rows rows apart, so its storage holds CACHED_SHAPE (the capacity with that axis at the
  // rows), shared by the past and the present.
  RowLayout layout;
  Shape cachedShape;
  bool dynamic() const { return storage == kRunTimeStorage; }
  // Placed in a storage and sized per run by the symbols.
  bool resized() const { return !capacity.empty(); }
  bool cached() const { return !layout.compact(); }
  const Shape& placedShape() const { return cached() ? cachedShape : resized() ? capacity : shape; }
  bool isList() const { return kind != ValueKind::kTensor; }
};

struct GraphPlan;

// A compiled body of a control-flow kernel: its own plan (kernels in the same library), and which
// of the kernel's inputs it reads as captured values (its inputs after the formal ones) and as
// its weights (its params, in order).
struct GraphBody {
  std::string attr;  // "then_branch", "body", ...
  std::shared_ptr<const GraphPlan> plan;
  std::vector<size_t> capturedInputs, paramInputs;  // positions among the kernel's args
};

struct GraphKernel {
  std::string name;
  std::string symbol;
  KilnKernelFn fn = nullptr;
  std::vector<int64_t> args;     // tensor ids
  size_t numOutputs = 1;         // the last args are the kernel's outputs
  std::vector<std::string> ops;  // the op types fused into the kernel (for profiles)
  std::shared_ptr<const OffloadPartition> offload;  // set instead of fn for an offloaded kernel
  int64_t flops = 0;          // its estimated floating-point operations (0: unknown)
  bool readsSymbols = false;  // its args end with the symbols' values (after the tensors)
  // Set instead of fn for an op the runtime executes (kiln/runtime/runtime_op.h); its args may
  // hold -1 for an omitted optional input or output.
  RuntimeOpFn runtimeOp = nullptr;
  std::string op;     // the runtime op's ONNX op type
  Json attrs;         // its attributes
  std::string label;  // "Reshape 'r1'", for the runtime op's errors
  // The dtype of each of its outputs (those nothing reads, whose args are -1, included); empty
  // in libraries from before it was written.
  std::vector<DataType> outputDtypes;
  // Control flow: the node's formal inputs (the args before the captured values and weights),
  // and its bodies.
  size_t formalInputs = 0;
  std::vector<GraphBody> bodies;
};

struct GraphPlan {
  std::string model;
  std::shared_ptr<SharedLibrary> library;  // keeps the kernels' code mapped
  std::vector<size_t> storageSizes;
  std::vector<GraphSymbol> symbols;  // sized when the inputs are given, within their bounds
  std::vector<GraphTensor> tensors;
  std::vector<int64_t> inputs;
  std::vector<int64_t> outputs;
  std::vector<int64_t> params;
  std::vector<GraphKernel> kernels;
  size_t totalArgs = 0;

  // Position in `params` / `inputs` of the tensor named NAME, or -1.
  int64_t paramIndex(const std::string& name) const;
  int64_t inputIndex(const std::string& name) const;
  std::string paramNames() const;  // "w1, w2, ..." for error messages
  std::string inputNames() const;
};

// Validates METADATA (schema in graph_executor.h) and resolves every kernel symbol in LIBRARY;
// throws kiln::Error naming MODEL and the offending field.
// OFFLOADS makes offloaded kernels ready (null: such a kernel is an error).
std::shared_ptr<const GraphPlan> parseGraphPlan(const Json& metadata,
                                                std::shared_ptr<SharedLibrary> library,
                                                const std::string& model,
                                                OffloadRuntimes* offloads = nullptr);

// One array per plan.params entry, shared read-only between a factory and its executors; an
// undefined array is a parameter still to be loaded.
using GraphParams = std::vector<NDArray>;

// Kernel-level access to a graph executor, for the debug executor that times each kernel.
class GraphKernelRunner {
 public:
  virtual ~GraphKernelRunner() = default;
  // What run() does before its first kernel: throws kiln::Error when weights are missing or the
  // inputs' sizes disagree, and sizes the plan's symbols.
  virtual void startRun() = 0;
  // Calls kernel K of the plan; throws kiln::Error naming it when it stops with a status.
  virtual void callKernel(size_t k) = 0;
  // The array of tensor ID (a view of the executor's storage, a bound buffer or a weight); a
  // cache's (GraphTensor::cached) has its logical shape but its storage's layout.
  virtual const NDArray& tensorArray(int64_t id) const = 0;
  // A compact copy of tensor ID.
  virtual NDArray tensorCopy(int64_t id) const = 0;
  // The value of tensor ID when it is a sequence or optional (see GraphTensor::isList).
  virtual const TensorList& tensorList(int64_t id) const = 0;
};

// An executor module (typeKey "graph_executor") with its storages allocated on DEVICE. RUNNER,
// when given, receives the executor's kernel-level access (valid while the module lives).
Module makeGraphExecutor(std::shared_ptr<const GraphPlan> plan, const GraphParams& params,
                         Device device, GraphKernelRunner** runner = nullptr);

// The debug executor (typeKey "debug_executor"): a graph executor with `profile(keep_outputs)`
// (runs once, timing every kernel; returns one JSON row per kernel) and
// `get_node_output(kernel, j)` (output J of KERNEL as the last profile with keep_outputs left it:
// an NDArray, or a TensorList for a sequence or optional). It lives in libkiln_runtime_debug,
// which registers its maker as it loads; makeDebugExecutor loads it from beside the core on first
// use when the program did not link it, and fails naming the library when it is not there.
using DebugExecutorMaker = Module (*)(std::shared_ptr<const GraphPlan> plan,
                                      const GraphParams& params, Device device);
inline constexpr const char* kDebugLibrary = "libkiln_runtime_debug.so";
void registerDebugExecutor(DebugExecutorMaker maker);
Module makeDebugExecutor(std::shared_ptr<const GraphPlan> plan, const GraphParams& params,
                         Device device);

}  // namespace kiln::runtime
