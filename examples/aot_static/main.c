/* Runs a model compiled by `kiln compile --executor aot --emit static` from plain C, with no kiln
 * runtime: the model here is the ONNX backend test "test_relu" (y = max(x, 0) over float32
 * [3,4,5]), so the program can check its own result. It reads the input from the test's
 * input_0.pb (a TensorProto whose raw float data ends the file), runs the model, and compares
 * every element with max(x, 0). Exit status 0 means the output is right.
 *
 *   kiln compile model.onnx --executor aot --emit static -o librelu.a   # writes librelu.h
 *   cc -I. main.c librelu.a -lm -o relu && ./relu input_0.pb */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "librelu.h"

/* The last BYTES bytes of the file at PATH (a TensorProto keeps raw_data last). */
static int readTail(const char* path, void* out, long bytes) {
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  int ok = fseek(f, -bytes, SEEK_END) == 0 && fread(out, 1, (size_t)bytes, f) == (size_t)bytes;
  fclose(f);
  return ok ? 0 : -1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s input_0.pb\n", argv[0]);
    return 2;
  }
  /* Sizes come from the generated header; buffers must be 64-byte aligned. */
  float* x = aligned_alloc(64, (KILN_DEFAULT_INPUT_0_BYTES + 63) / 64 * 64);
  float* y = aligned_alloc(64, (KILN_DEFAULT_OUTPUT_0_BYTES + 63) / 64 * 64);
  void* workspace = aligned_alloc(64, KILN_DEFAULT_WORKSPACE_BYTES / 64 * 64 + 64);
  if (!x || !y || !workspace) return 1;
  if (readTail(argv[1], x, KILN_DEFAULT_INPUT_0_BYTES) != 0) {
    fprintf(stderr, "cannot read %d bytes of input from %s\n", KILN_DEFAULT_INPUT_0_BYTES, argv[1]);
    return 1;
  }
  void* inputs[KILN_DEFAULT_NUM_INPUTS] = {x};
  void* outputs[KILN_DEFAULT_NUM_OUTPUTS] = {y};
  int32_t status = kiln_default_run(inputs, outputs, kiln_default_params, workspace);
  if (status != 0) {
    fprintf(stderr, "the model stopped with status %d\n", (int)status);
    return 1;
  }
  int n = KILN_DEFAULT_OUTPUT_0_BYTES / (int)sizeof(float), wrong = 0, positive = 0;
  for (int i = 0; i < n; ++i) {
    float want = x[i] > 0 ? x[i] : 0.0f;
    wrong += y[i] != want;
    positive += y[i] > 0;
  }
  printf("%d outputs, %d positive, %d wrong\n", n, positive, wrong);
  free(x);
  free(y);
  free(workspace);
  return wrong == 0 && positive > 0 ? 0 : 1;
}
