/* The C ABI between generated code and the runtime. A compiled artifact exports:
 *   - kernels:            int32_t <symbol>(void* const* args)   args = tensor data pointers,
 *                         inputs then outputs, in the order the executor metadata lists them;
 *                         returns a KilnStatus (c_abi.h): KILN_STATUS_ERROR when the runtime
 *                         could not run one of its parallel loops, a positive code for bad data.
 *   - __kiln_backend_api: a pointer (initially NULL) the runtime sets after loading, through which
 *                         kernels reach the runtime's thread pool;
 *   - __kiln_artifact, __kiln_artifact_size: the artifact container (metadata and weights). */
#ifndef KILN_RUNTIME_BACKEND_API_H_
#define KILN_RUNTIME_BACKEND_API_H_

#include <stdint.h>

#include "kiln/runtime/c_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs iterations [begin, end) of a parallel loop. */
typedef KilnStatus (*KilnParallelBody)(int64_t begin, int64_t end, void* closure);

typedef struct {
  uint32_t version; /* KILN_ABI_VERSION */
  /* Splits [0, extent) into contiguous chunks over the runtime's pool and calls BODY for each;
   * returns when all are done. Returns the first non-zero status of a body, KILN_STATUS_ERROR
   * when the pool could not run the loop, else KILN_STATUS_OK. */
  KilnStatus (*parallel_launch)(KilnParallelBody body, void* closure, int64_t extent);
} KilnBackendApi;

typedef KilnStatus (*KilnKernelFn)(void* const* args);

#define KILN_SYMBOL_BACKEND_API "__kiln_backend_api"
#define KILN_SYMBOL_ARTIFACT "__kiln_artifact"
#define KILN_SYMBOL_ARTIFACT_SIZE "__kiln_artifact_size"

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_BACKEND_API_H_ */
