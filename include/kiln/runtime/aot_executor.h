// The AOT executor: calls one generated entry function per run; nothing is interpreted.
//
// Executor metadata ("aot" executor), written by the compiler and read here:
// {
//   "entry": "kiln_<model>_run",        // int32_t entry(void* const* inputs, void* const* outputs,
//                                       //               void* const* params, void* workspace)
//   "workspace_bytes": N,               // intermediate tensors, at offsets fixed in the entry
//   "inputs":  [{"name": S, "shape": [..], "dtype": "float32"}, ...],   // model order
//   "outputs": [{"name", "shape", "dtype"}, ...],
//   "params":  [{"name", "shape", "dtype"}, ...],   // named like the weights in the params blob
//   "kernels": [{"name": S, "symbol": S}, ...]      // the calls the entry makes, in order
// }
// Input, output and workspace pointers must be 64-byte aligned.
#pragma once

#include <memory>

#include "kiln/runtime/artifact.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/shared_library.h"

namespace kiln::runtime {

class OffloadRuntimes;

// The factory module (typeKey "aot_factory") for one model of a loaded library; its executors
// (typeKey "aot_executor") answer the same functions as the graph executor's.
Module makeAotFactory(const std::shared_ptr<SharedLibrary>& library, const ArtifactModel& model,
                      OffloadRuntimes* offloads = nullptr);  // unused: AOT code offloads nothing

}  // namespace kiln::runtime
