// The graph executor: runs a model's compiled kernels in order over one static memory plan.
//
// Executor metadata ("graph" executor), written by the compiler and read here:
// {
//   "storages": [{"size": BYTES}, ...],          // planned buffers, allocated once per executor
//   "symbols":  [{"name": S, "min": N, "max": N}, ...],   // sizes fixed per run by the inputs
//   "tensors":  [{"name": S, "shape": [..], "dtype": "float32",
//                 "storage": SID, "offset": BYTES,  // SID -1: the tensor is a parameter;
//                                                   // -2: sized at run time (dims -1 unknown)
//                 "dims": [..],                     // optional: per dim an integer or its terms
//                                                   // [[COEF, SYMBOL...], ...] in the symbols
//                 "capacity": [..]}, ...],          // with dims and SID >= 0: the planned shape
//   "inputs":   [TENSOR_ID, ...],                 // model inputs only, in model order
//   "outputs":  [TENSOR_ID, ...],
//   "params":   [TENSOR_ID, ...],                 // named like the weights in the params blob
//   "kernels":  [{"name": S, "symbol": S, "args": [TENSOR_ID, ...],   // in run order
//                 "num_outputs": N,            // the last N args are written (default 1)
//                 "ops": ["Conv", "Relu"],     // fused op types, for profiles (optional)
//                 "flops": N,                  // estimated operations, for profiles (optional)
//                 "reads_symbols": true}, ...] // optional: one more arg, the symbols' values
// }
// Each kernel is called as KilnKernelFn(args) with the data pointers of its arg tensors (and,
// when it reads symbols, then a pointer to their int64 values, in "symbols" order). A tensor
// with dims placed in a storage (SID >= 0) holds its capacity's bytes; each run it takes the
// shape its dims give for the run's symbols. A kernel
// offloaded to an extension backend has "offload": {"backend": S, "payload": BASE64} instead of
// "symbol": the backend's runtime (offload_api.h) makes it ready from the payload when the model
// is loaded and runs it with the same args. A node the runtime executes itself (runtime_op.h)
// has "runtime_op": {"op": ONNX_OP, "attrs": {...}, "output_dtypes": [...]} instead: its args
// are its inputs (-1 for an omitted one) and then its outputs (-1 for one nothing reads, computed
// into scratch memory of its dtype); only such kernels may touch tensors sized at run time, which
// the executor allocates when their shapes are known and keeps for the next run.
#pragma once

#include <string>

#include "kiln/runtime/artifact.h"
#include "kiln/runtime/module.h"
#include "kiln/runtime/shared_library.h"

namespace kiln::runtime {

class OffloadRuntimes;

// The "storage" of a tensor the executor allocates at run time, once its shape is known.
inline constexpr int64_t kRunTimeStorage = -2;

// The factory module for one model of a loaded library: calling it with a Device creates an
// executor module with set_input, run, get_output, get_num_inputs, get_num_outputs,
// get_input_index, get_input_info, get_output_info, load_params, share_params.
// The factory also answers get_params, remove_params and list_models.
// OFFLOADS finds the backend runtimes of offloaded kernels; without it, a model with one is
// refused.
Module makeGraphFactory(const std::shared_ptr<SharedLibrary>& library, const ArtifactModel& model,
                        OffloadRuntimes* offloads = nullptr);

}  // namespace kiln::runtime
