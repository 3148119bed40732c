/* kiln's C surface: the version, the status convention and the ownership rule that every C
 * interface of kiln shares: the runtime ABI (kiln/runtime/c_api.h), the kernel ABI between
 * generated code and the runtime (kiln/runtime/backend_api.h), the plug-in ABI
 * (kiln/extension/extension_api.h, kiln/runtime/offload_api.h) and the header kiln writes beside
 * a static library (kiln compile --emit static), which carries these definitions itself.
 *
 * Version. KILN_ABI_VERSION is one number for all of them, raised when any of them changes
 *   incompatibly. kiln refuses an extension built against another version before calling
 *   anything else in it; kiln_api_version() and the backend API table report it at run time.
 *
 * Status. Every function that can fail returns a KilnStatus: KILN_STATUS_OK (0) on success;
 *   KILN_STATUS_ERROR (-1) for a failure described in words through the interface's error
 *   channel (kiln_get_last_error() on the calling thread for the runtime ABI; host->set_error()
 *   or the error buffer it is given for a plug-in); a positive code for a data error a kernel
 *   found in a model's inputs (no words: the code names it). Functions that answer a question
 *   (a count, an attribute lookup) say so where they are declared.
 *
 * Ownership. Arguments are borrowed for the duration of the call: the callee copies what it
 *   keeps. What a call hands back through an out-parameter belongs to the caller, who frees it
 *   with the one function named for it (kiln_value_release, kiln_module_free, kiln_function_free,
 *   a DLManagedTensor's own deleter, a backend runtime's destroy). Pointers returned as a
 *   function's value (text, tables) stay the callee's, valid for as long as its header says.
 *
 * Plain C99, no kiln library needed to use it. */
#ifndef KILN_RUNTIME_C_ABI_H_
#define KILN_RUNTIME_C_ABI_H_

#include <stdint.h>

#define KILN_ABI_VERSION 1

typedef int32_t KilnStatus;

#define KILN_STATUS_OK 0
#define KILN_STATUS_ERROR (-1)
/* A kernel's data error: an index input holds a value outside its axis (ONNX makes that an
 * error, not a clamp). */
#define KILN_STATUS_INDEX_OUT_OF_RANGE 2

#endif /* KILN_RUNTIME_C_ABI_H_ */
