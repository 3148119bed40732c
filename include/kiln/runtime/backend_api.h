/* The C ABI between generated code and the runtime. A compiled artifact exports:
 *   - kernels:            int32_t <symbol>(void* const* args)   args = tensor data pointers,
 *                         inputs then outputs, in the order the executor metadata lists them;
 *                         returns 0 on success, else a KILN_STATUS_* code.
 *   - __kiln_backend_api: a pointer (initially NULL) the runtime sets after loading, through which
 *                         kernels reach the runtime's thread pool;
 *   - __kiln_artifact, __kiln_artifact_size: the artifact container (metadata and weights). */
#ifndef KILN_RUNTIME_BACKEND_API_H_
#define KILN_RUNTIME_BACKEND_API_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_BACKEND_API_VERSION 1

/* Runs iterations [begin, end) of a parallel loop; returns 0 on success. */
typedef int32_t (*KilnParallelBody)(int64_t begin, int64_t end, void* closure);

typedef struct {
  uint32_t version;
  /* Splits [0, extent) into contiguous chunks over the runtime's pool and calls BODY for each;
   * returns when all are done. Returns the first non-zero status of a body, else 0. */
  int32_t (*parallel_launch)(KilnParallelBody body, void* closure, int64_t extent);
} KilnBackendApi;

typedef int32_t (*KilnKernelFn)(void* const* args);

/* What a kernel's non-zero status means. Data errors are the model's inputs breaking a rule of an
 * operator (ONNX makes an out-of-range index an error, not a clamp). */
#define KILN_STATUS_OK 0
#define KILN_STATUS_PARALLEL_FAILED (-1) /* the runtime could not run a parallel loop */
#define KILN_STATUS_INDEX_OUT_OF_RANGE 2 /* an index input holds a value outside its axis */

#define KILN_SYMBOL_BACKEND_API "__kiln_backend_api"
#define KILN_SYMBOL_ARTIFACT "__kiln_artifact"
#define KILN_SYMBOL_ARTIFACT_SIZE "__kiln_artifact_size"

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_BACKEND_API_H_ */
