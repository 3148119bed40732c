/* A C program that runs a kiln model through the runtime's C ABI (kiln/runtime/c_api.h) and the
 * installed runtime: loads the library LIB.so, creates model "default"'s executor on the CPU,
 * sets input 0 to X[i] = (i - N/2) / 10 (float32, the shape the model declares), runs it and
 * checks output 0 against ReLU(X), the model being ONNX's test_relu. Prints "ok" and exits 0, or
 * says what differed and exits 1.
 *
 *   run_model LIB.so */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/runtime/c_api.h"

static int failed(const char* what) {
  fprintf(stderr, "run_model: %s: %s\n", what, kiln_get_last_error());
  return 1;
}

/* Calls function NAME of MOD with ARGS; RESULT receives its value. */
static int call(KilnModuleHandle mod, const char* name, const KilnValue* args, int32_t n,
                KilnValue* result) {
  KilnFunctionHandle f = NULL;
  if (kiln_module_get_function(mod, name, &f) != 0) return -1;
  int status = kiln_function_call(f, args, n, result);
  kiln_function_free(f);
  return status;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: run_model LIB.so\n");
    return 2;
  }
  if (kiln_api_version() != KILN_C_API_VERSION) {
    fprintf(stderr, "run_model: the runtime speaks C ABI %d, this program %d\n", kiln_api_version(),
            KILN_C_API_VERSION);
    return 1;
  }
  KilnModuleHandle lib = NULL;
  if (kiln_module_load(argv[1], &lib) != 0) return failed("loading the library");

  KilnValue cpu = {.type_code = kKilnDevice, .v.v_device = {kDLCPU, 0}};
  KilnValue executor = {.type_code = kKilnNone};
  if (call(lib, "default", &cpu, 1, &executor) != 0) return failed("creating the executor");

  /* The input's shape, from the model: test_relu takes float32[3,4,5]. */
  int64_t shape[3] = {3, 4, 5};
  enum { kCount = 3 * 4 * 5 };
  float x[kCount];
  for (int i = 0; i < kCount; ++i) x[i] = (float)(i - kCount / 2) / 10.0f;
  DLTensor input = {.data = x,
                    .device = {kDLCPU, 0},
                    .ndim = 3,
                    .dtype = {kDLFloat, 32, 1},
                    .shape = shape,
                    .strides = NULL,
                    .byte_offset = 0};
  KilnValue setArgs[2] = {{.type_code = kKilnInt, .v.v_int = 0},
                          {.type_code = kKilnTensor, .v.v_tensor = &input}};
  KilnValue none = {.type_code = kKilnNone};
  if (call(executor.v.v_module, "set_input", setArgs, 2, &none) != 0) return failed("set_input");
  if (call(executor.v.v_module, "run", NULL, 0, &none) != 0) return failed("run");
  KilnValue index = {.type_code = kKilnInt, .v.v_int = 0};
  KilnValue output = {.type_code = kKilnNone};
  if (call(executor.v.v_module, "get_output", &index, 1, &output) != 0) {
    return failed("get_output");
  }
  const float* y = (const float*)output.v.v_tensor->data;
  int bad = 0;
  for (int i = 0; i < kCount; ++i) {
    float want = x[i] > 0 ? x[i] : 0.0f;
    if (y[i] != want) {
      fprintf(stderr, "run_model: y[%d] is %g; expected %g\n", i, y[i], want);
      bad = 1;
    }
  }
  kiln_value_release(&output);
  kiln_value_release(&executor);
  kiln_module_free(lib);
  if (!bad) printf("ok\n");
  return bad;
}
