/* kiln's C ABI: load a module, get a function, call it with typed arguments, read the last error.
 * Plain C (C99), so any language with a C FFI can drive the runtime. Values carry the stable type
 * codes that the RPC wire format and the Python bindings use too (docs/rpc.md lists them). The
 * version, status convention and ownership rule are kiln's one C surface (c_abi.h). */
#ifndef KILN_RUNTIME_C_API_H_
#define KILN_RUNTIME_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/runtime/c_abi.h"
#include "kiln/runtime/dlpack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The type of a value. The numbers never change: new types get new numbers. */
typedef enum {
  kKilnNone = 0,
  kKilnInt = 1,       /* v_int */
  kKilnFloat = 2,     /* v_float */
  kKilnBool = 3,      /* v_int, 0 or 1 */
  kKilnString = 4,    /* v_str: UTF-8 text, not necessarily NUL-terminated */
  kKilnBytes = 5,     /* v_str: raw bytes (parameter blobs) */
  kKilnTensor = 6,    /* v_tensor */
  kKilnDevice = 7,    /* v_device */
  kKilnDataType = 8,  /* v_dtype */
  kKilnJson = 9,      /* v_str: JSON text */
  kKilnModule = 10,   /* v_module */
  kKilnFunction = 11, /* v_function */
  /* Only on the RPC wire: a tensor that stays on the server, by handle (docs/rpc.md). */
  kKilnRemoteTensor = 12,
  kKilnTensorList = 13 /* v_list: a sequence's tensors (ONNX sequence and optional values) */
} KilnTypeCode;

typedef struct KilnModuleObject* KilnModuleHandle;
typedef struct KilnFunctionObject* KilnFunctionHandle;

typedef struct {
  const char* data;
  size_t size;
} KilnString;

/* A sequence's tensors, or an optional's: SIZE tensors at ITEMS, or SIZE -1 for an optional that
 * holds nothing (then ITEMS may be NULL). An optional tensor that holds one is a kKilnTensor. */
typedef struct {
  DLTensor** items;
  int64_t size;
} KilnTensorList;

/* One argument or result. Arguments are borrowed for the duration of the call (a tensor's data is
 * used in place, not copied, so it must be compact and on the CPU). A result owns what it points
 * to until kiln_value_release. */
typedef struct {
  int32_t type_code; /* a KilnTypeCode */
  union {
    int64_t v_int;
    double v_float;
    KilnString v_str;
    DLTensor* v_tensor;
    DLDevice v_device;
    DLDataType v_dtype;
    KilnModuleHandle v_module;
    KilnFunctionHandle v_function;
    KilnTensorList v_list;
  } v;
} KilnValue;

/* C names, snake_case like every C API: */
/* NOLINTBEGIN(readability-identifier-naming) */

/* Every KilnStatus function returns KILN_STATUS_OK, or KILN_STATUS_ERROR after which
 * kiln_get_last_error() (on the same thread) says what was received and what was expected. */

/* KILN_ABI_VERSION of the runtime library loaded. */
int kiln_api_version(void);
/* The message of this thread's last failure; valid until its next call into kiln. */
const char* kiln_get_last_error(void);

/* Loads a kiln artifact (checks its file, checksum and format version). */
KilnStatus kiln_module_load(const char* path, KilnModuleHandle* out);
/* The function NAME of MOD; an error naming the functions MOD has when it has no such function. */
KilnStatus kiln_module_get_function(KilnModuleHandle mod, const char* name,
                                    KilnFunctionHandle* out);
/* Calls F with NUM_ARGS arguments; *RESULT receives the return value (kKilnNone for none). */
KilnStatus kiln_function_call(KilnFunctionHandle f, const KilnValue* args, int32_t num_args,
                              KilnValue* result);

/* Frees what a result owns (text, a tensor, a module or function handle) and sets it to none.
 * Safe on none and on a value already released. */
void kiln_value_release(KilnValue* value);
/* Moves the tensor a result holds (kKilnTensor) into *OUT, a DLManagedTensor that frees it with
 * its own deleter, so it may outlive the value and go to any DLPack consumer without a copy;
 * VALUE becomes none. Fails, leaving VALUE as it was, when VALUE holds no tensor. */
KilnStatus kiln_value_take_tensor(KilnValue* value, DLManagedTensor** out);
/* Drop a handle; NULL is allowed. A module stays alive while functions taken from it do. */
void kiln_module_free(KilnModuleHandle mod);
void kiln_function_free(KilnFunctionHandle f);

/* NOLINTEND(readability-identifier-naming) */

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_C_API_H_ */
