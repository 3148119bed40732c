/* A C program that runs a kiln model through the runtime's C ABI (kiln/runtime/c_api.h) and the
 * installed runtime: loads the library LIB.so, creates model "default"'s executor on the CPU,
 * sets input 0 to X[i] = (i - N/2) / 10 (float32, the shape the model declares), runs it and
 * checks output 0 against ReLU(X), the model being ONNX's test_relu. The output is taken as a
 * DLManagedTensor and read after the executor and the library are freed: a tensor kiln returns
 * is the caller's, freed by its own deleter (kiln/runtime/c_abi.h's ownership rule). Prints "ok"
 * and exits 0, or says what differed and exits 1.
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
static KilnStatus call(KilnModuleHandle mod, const char* name, const KilnValue* args, int32_t n,
                       KilnValue* result) {
  KilnFunctionHandle f = NULL;
  KilnStatus status = kiln_module_get_function(mod, name, &f);
  if (status != KILN_STATUS_OK) return status;
  status = kiln_function_call(f, args, n, result);
  kiln_function_free(f);
  return status;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: run_model LIB.so\n");
    return 2;
  }
  if (kiln_api_version() != KILN_ABI_VERSION) {
    fprintf(stderr, "run_model: the runtime speaks C ABI %d, this program %d\n", kiln_api_version(),
            KILN_ABI_VERSION);
    return 1;
  }
  KilnModuleHandle lib = NULL;
  if (kiln_module_load(argv[1], &lib) != KILN_STATUS_OK) return failed("loading the library");

  KilnValue cpu = {.type_code = kKilnDevice, .v.v_device = {kDLCPU, 0}};
  KilnValue executor = {.type_code = kKilnNone};
  if (call(lib, "default", &cpu, 1, &executor) != KILN_STATUS_OK) {
    return failed("creating the executor");
  }

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
  if (call(executor.v.v_module, "set_input", setArgs, 2, &none) != KILN_STATUS_OK) {
    return failed("set_input");
  }
  if (call(executor.v.v_module, "run", NULL, 0, &none) != KILN_STATUS_OK) return failed("run");
  KilnValue index = {.type_code = kKilnInt, .v.v_int = 0};
  KilnValue output = {.type_code = kKilnNone};
  if (call(executor.v.v_module, "get_output", &index, 1, &output) != KILN_STATUS_OK) {
    return failed("get_output");
  }
  DLManagedTensor* out = NULL;
  if (kiln_value_take_tensor(&output, &out) != KILN_STATUS_OK) return failed("taking the output");
  kiln_value_release(&output); /* none now: a no-op */
  kiln_value_release(&executor);
  kiln_module_free(lib);

  const float* y = (const float*)out->dl_tensor.data;
  int bad = out->dl_tensor.ndim != 3;
  for (int d = 0; d < 3 && !bad; ++d) bad = out->dl_tensor.shape[d] != shape[d];
  if (bad) fprintf(stderr, "run_model: the output's shape is not [3,4,5]\n");
  for (int i = 0; i < kCount && !bad; ++i) {
    float want = x[i] > 0 ? x[i] : 0.0f;
    if (y[i] != want) {
      fprintf(stderr, "run_model: y[%d] is %g; expected %g\n", i, y[i], want);
      bad = 1;
    }
  }
  out->deleter(out);
  if (!bad) printf("ok\n");
  return bad;
}
