// The compiler's named phases, in the order a library goes through them; `--compile-to PHASE`
// stops after one and writes its IR, `--dump-ir` writes every phase's.
#pragma once

#include <string>
#include <vector>

namespace kiln::driver {

enum class CompilePhase {
  kImport,           // ONNX -> graph IR
  kGraphPasses,      // the target-independent passes before partitioning (graph IR)
  kPartition,        // offload backends take over the parts they support (graph IR)
  kFuse,             // blocked layouts, packed weights, fusion into kernel groups (graph IR)
  kLower,            // each group becomes a kernel: loop IR with its schedule
  kPlan,             // the static memory plan (JSON)
  kExecutorCodegen,  // the executor's metadata and entry functions (JSON)
  kCodegen,          // machine code for every kernel of every model (LLVM IR)
  kLink,             // the artifact
};

// Every phase, in order.
const std::vector<CompilePhase>& compilePhases();
// The phase's kebab-case name ("graph-passes").
const char* phaseName(CompilePhase phase);
// Every phase's name, in order, joined by ", " ("import, graph-passes, ...").
std::string phaseNames();
// The phase named NAME; throws kiln::Error listing the names.
CompilePhase parseCompilePhase(const std::string& name);

}  // namespace kiln::driver
