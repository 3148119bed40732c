// Lowering a fused group of graph nodes into one kernel of loop IR.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kiln/ir/fused_group.h"
#include "kiln/ir/graph.h"
#include "kiln/kernel/schedule.h"
#include "kiln/support/json.h"
#include "kiln/tir/prim_func.h"

namespace kiln::kernel {

using ir::FusedGroup;

// A kernel an offload backend runs (a kiln.Offload node): no loop IR, no code of kiln's.
struct KernelOffload {
  std::string backend;
  std::string payload;  // base64, as the node holds it
};

// A kernel an offload backend compiled to a relocatable object, linked into the artifact.
struct KernelObject {
  std::string backend;
  std::string object;  // the object file's bytes
  std::string entry;   // the function the object defines; linked as the kernel's symbol
};

// A kernel the runtime executes (kiln/runtime/runtime_op.h): its op and attributes.
struct KernelRuntimeOp {
  std::string op;
  Json attrs;
  // The dtype of each output of the node, those nothing reads included (the runtime computes
  // them into scratch memory of that type).
  std::vector<runtime::DataType> outputDtypes;
  // Control flow (If, Loop, Scan), set by the driver when it has compiled the node's bodies: the
  // node's ONNX inputs (those before its captured values and the bodies' weights), and per body
  // its graph executor metadata with "captured_inputs" and "param_inputs" (node input indices).
  int64_t formalInputs = -1;
  Json bodies;
};

struct LoweredKernel {
  tir::PrimFunc func;  // for an offload or an object, only its name (the kernel's symbol) is set
  // The values behind func.params, in order: a subset of group.inputs (scalar constants may be
  // folded into the code as immediates) followed by group.outputs.
  std::vector<const ir::Value*> args;
  // The workload and the knobs the lowering chose (what a schedule file or a tuner overrides).
  KernelSchedule schedule;
  std::optional<KernelOffload> offload;
  std::optional<KernelObject> object;
  // Set for a node the runtime executes; ARGS then hold its inputs (null for an omitted one)
  // followed by all its outputs (null for one nothing reads).
  std::optional<KernelRuntimeOp> runtimeOp;
  // The kernel reads the values of the graph's symbols (sizes fixed per run, in the order of
  // Graph::dimBounds) from one more parameter after ARGS: an int64 array the executor passes.
  bool readsSymbols = false;
};

// The kernel's symbol is SYMBOL. A group of one kiln.Offload node becomes an offload kernel (or,
// with an `entry`, an object kernel) whose args are the node's inputs, in order, then its output.
// Throws kiln::Error when the group holds an op or attribute combination kiln cannot lower, naming
// the node.
LoweredKernel lowerGroup(const FusedGroup& group, const std::string& symbol,
                         const ScheduleConfig& config);

// Throws kiln::InternalError naming F when one of its local buffers exceeds kMaxLocalBufferBytes
// or all of them together exceed kMaxLocalBytesPerKernel (lowerGroup runs it on every kernel).
void checkLocalBuffers(const tir::PrimFunc& f);

// The graph ops the builtin lowering table has kernels for, sorted.
std::vector<std::string> loweredOps();

}  // namespace kiln::kernel
