/* The runtime half of the extension C ABI: how the kiln runtime runs partitions a backend compiled.
 * The library that provides it (an extension, or a runtime-only library of the same backend built
 * for the device) exports
 *
 *   uint32_t kiln_extension_api_version(void);             returns KILN_ABI_VERSION
 *   const KilnBackendRuntime* kiln_backend_runtime(const char* backend);
 *       the runtime of BACKEND, or NULL when this library does not run it.
 *
 * When a model is loaded, kiln calls create() once per offloaded partition with the payload the
 * backend's compile function produced; every run of the model calls run() for it, from any
 * thread, possibly from several threads at once for one state; destroy() is called when the last
 * executor of the model is gone. Statuses, version and ownership follow c_abi.h. Plain C99, no
 * kiln library needed to build it. */
#ifndef KILN_RUNTIME_OFFLOAD_API_H_
#define KILN_RUNTIME_OFFLOAD_API_H_

#include <stdint.h>

#include "kiln/runtime/c_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_EXTENSION_SYMBOL_VERSION "kiln_extension_api_version"
#define KILN_BACKEND_RUNTIME_SYMBOL "kiln_backend_runtime"

/* NOLINTBEGIN(readability-identifier-naming) */

typedef struct KilnBackendRuntime {
  uint32_t struct_size; /* sizeof(KilnBackendRuntime) as the library saw it */
  /* Prepares one partition from PAYLOAD (SIZE bytes, valid during the call only). Returns
   * KILN_STATUS_OK and sets *STATE (freed by destroy), or KILN_STATUS_ERROR after writing a
   * NUL-terminated message of at most ERROR_SIZE bytes (the terminator included) to ERROR. */
  KilnStatus (*create)(const void* payload, uint64_t size, void** state, char* error,
                       uint64_t error_size);
  /* Runs the partition: ARGS are the data pointers of its inputs, then of its output, in the order
   * the compile function was told (KilnMatch.arg_index). Returns KILN_STATUS_OK, or a non-zero
   * status that makes the model's run fail with an error naming the backend and the partition. */
  KilnStatus (*run)(void* state, void* const* args);
  void (*destroy)(void* state);
} KilnBackendRuntime;

typedef const KilnBackendRuntime* (*KilnBackendRuntimeFn)(const char* backend);

/* NOLINTEND(readability-identifier-naming) */

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_OFFLOAD_API_H_ */
