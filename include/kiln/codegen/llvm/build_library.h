// Turning kernels and an artifact container into one shared library.
#pragma once

#include <string>
#include <vector>

#include "kiln/codegen/llvm/entry_function.h"
#include "kiln/codegen/llvm/target.h"
#include "kiln/tir/prim_func.h"

namespace kiln::codegen {

// A kernel an offload backend compiled itself: a relocatable object defining ENTRY (kiln's kernel
// ABI), linked in as SYMBOL with every other symbol it defines made local.
struct ObjectKernel {
  std::string symbol;
  std::string backend;  // for messages
  std::string object;   // the object file's bytes
  std::string entry;
};

struct BuildOptions {
  Target target;
  int optLevel = 3;  // 0..3, LLVM's optimisation level
  // When set, the LLVM IR of the modules (after optimisation) is written here, one after another.
  std::string dumpLlvmPath;
  // When set, the assembly of the modules is written here, one after another.
  std::string dumpAsmPath;
  // Threads that generate code at once (the kernels are split into this many modules); 0 means
  // one per core. The library computes the same results whatever the count.
  int threads = 0;
  // Kernels an offload backend compiled to relocatable objects, linked in beside kiln's own.
  std::vector<ObjectKernel> objects;
};

// Generates machine code for FUNCS and the executors' ENTRIES, embeds ARTIFACT (the serialized
// container) as __kiln_artifact/__kiln_artifact_size, defines __kiln_backend_api, and links
// everything into the shared library OUTPUT_PATH (written atomically). Throws kiln::Error when
// linking fails.
void buildSharedLibrary(const std::vector<tir::PrimFunc>& funcs,
                        const std::vector<EntryFunction>& entries, const std::string& artifact,
                        const BuildOptions& options, const std::string& outputPath);
// The same without entry functions.
void buildSharedLibrary(const std::vector<tir::PrimFunc>& funcs, const std::string& artifact,
                        const BuildOptions& options, const std::string& outputPath);

// Generates code for FUNCS and ENTRIES as buildSharedLibrary does and writes the optimised LLVM IR
// of its modules to OUTPUT_PATH, one after another, instead of linking: what --compile-to codegen
// shows.
void writeLlvmIr(const std::vector<tir::PrimFunc>& funcs, const std::vector<EntryFunction>& entries,
                 const BuildOptions& options, const std::string& outputPath);

// One model's weights for a static library: BYTES hold every tensor at OFFSETS (64-byte aligned),
// emitted read-only as WEIGHTS_SYMBOL; TABLE_SYMBOL is `void* const TABLE[]`, one pointer per
// tensor into it, in the order the model's entry function expects its params.
struct WeightTable {
  std::string weightsSymbol;
  std::string tableSymbol;
  std::string bytes;
  std::vector<uint64_t> offsets;
};

// Generates machine code for FUNCS and ENTRIES and archives it with the WEIGHTS into the static
// library OUTPUT_PATH (written atomically), for programs that link the model without the kiln
// runtime: __kiln_backend_api stays null, so parallel loops run on the calling thread.
void buildStaticLibrary(const std::vector<tir::PrimFunc>& funcs,
                        const std::vector<EntryFunction>& entries,
                        const std::vector<WeightTable>& weights, const BuildOptions& options,
                        const std::string& outputPath);

}  // namespace kiln::codegen
