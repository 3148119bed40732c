/* vanilla: a minimal kiln offload backend. It claims 2-D float32 convolutions with a constant
 * weight and bias followed by ReLU ("Conv Relu"), compiles each into a small table of sizes (its
 * payload), and runs them with its own C kernel. kiln compiles everything else. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/extension/extension_api.h"

/* The payload: everything run() needs besides the tensors, as int64 values. */
enum {
  P_N,
  P_C,
  P_H,
  P_W, /* input dims */
  P_K,
  P_R,
  P_S, /* output channels, kernel height and width */
  P_OH,
  P_OW, /* output height and width */
  P_SH,
  P_SW,
  P_PT,
  P_PL, /* strides, top and left padding */
  P_DH,
  P_DW, /* dilations */
  P_X,
  P_WT,
  P_B,
  P_Y, /* positions of x, weight, bias and output among the args */
  P_COUNT
};

/* ---- compile side ---- */

static int is_f32(const KilnTensorInfo* t, int32_t rank) {
  return strcmp(t->dtype, "float32") == 0 && t->rank == rank;
}

/* Reads the INT list attribute NAME of N into OUT[2]; absent: DEFAULT_VALUE. 0 on success. */
static int pair_attr(const KilnMatch* m, const KilnNode* n, const char* name, int64_t dflt,
                     int64_t out[2], int32_t want) {
  const int64_t* values = NULL;
  int32_t count = 0;
  int32_t status = m->api->attr_ints(n, name, &values, &count);
  if (status == 1) {
    out[0] = out[1] = dflt;
    return 0;
  }
  if (status != 0 || count != want) return -1;
  out[0] = values[0];
  out[1] = values[1];
  return 0;
}

/* Fills P from the Conv of M; 0 when vanilla can run it. */
static int describe(const KilnMatch* m, int64_t* p) {
  const KilnGraphApi* api = m->api;
  const KilnNode* conv = m->nodes[0];
  KilnTensorInfo x, w, b, y;
  if (api->input(conv, 0, &x) != 0 || api->input(conv, 1, &w) != 0 ||
      api->input(conv, 2, &b) != 0 || api->output(conv, 0, &y) != 0) {
    return -1; /* vanilla needs a bias */
  }
  if (!is_f32(&x, 4) || !is_f32(&w, 4) || !is_f32(&b, 1) || !is_f32(&y, 4)) return -1;
  if (w.data == NULL || b.data == NULL) return -1; /* weights must be constants */
  int64_t group = 1;
  if (api->attr_int(conv, "group", &group) < 0 || group != 1) return -1;
  const char* auto_pad = "NOTSET";
  if (api->attr_string(conv, "auto_pad", &auto_pad) < 0) return -1;
  if (strcmp(auto_pad, "NOTSET") != 0 && strcmp(auto_pad, "VALID") != 0) return -1;
  int64_t strides[2], dilations[2], pads[4] = {0, 0, 0, 0};
  if (pair_attr(m, conv, "strides", 1, strides, 2) != 0) return -1;
  if (pair_attr(m, conv, "dilations", 1, dilations, 2) != 0) return -1;
  const int64_t* pad_values = NULL;
  int32_t pad_count = 0;
  int32_t status = api->attr_ints(conv, "pads", &pad_values, &pad_count);
  if (status == 0 && pad_count == 4) {
    memcpy(pads, pad_values, sizeof pads);
  } else if (status != 1) {
    return -1;
  }
  p[P_N] = x.shape[0], p[P_C] = x.shape[1], p[P_H] = x.shape[2], p[P_W] = x.shape[3];
  p[P_K] = w.shape[0], p[P_R] = w.shape[2], p[P_S] = w.shape[3];
  p[P_OH] = y.shape[2], p[P_OW] = y.shape[3];
  p[P_SH] = strides[0], p[P_SW] = strides[1], p[P_PT] = pads[0], p[P_PL] = pads[1];
  p[P_DH] = dilations[0], p[P_DW] = dilations[1];
  /* arg_index: the Conv's inputs come first (node 0), then the Relu's (node 1). */
  p[P_X] = m->arg_index[0], p[P_WT] = m->arg_index[1], p[P_B] = m->arg_index[2];
  p[P_Y] = (int64_t)m->num_args - 1;
  return w.shape[1] == x.shape[1] ? 0 : -1;
}

static int32_t vanilla_accepts(void* user_data, const KilnMatch* m) {
  (void)user_data;
  int64_t p[P_COUNT];
  if (describe(m, p) != 0) return 0;
  const char* min_channels = m->api->target_attr(m, "min-channels");
  return p[P_K] >= strtoll(min_channels, NULL, 10);
}

static int32_t vanilla_compile(void* user_data, const KilnMatch* m) {
  (void)user_data;
  int64_t p[P_COUNT];
  if (describe(m, p) != 0) {
    m->api->set_error(m, "not a float32 2-D Conv with constant weight and bias");
    return 1;
  }
  m->api->set_payload(m, p, sizeof p);
  return 0;
}

static const KilnTargetAttr kAttrs[] = {
    {"min-channels", KILN_ATTR_INT, "1",
     "Offload only convolutions with at least this many output channels"},
};

static const KilnPattern kPatterns[] = {
    {"conv_bias_relu", "Conv Relu", vanilla_accepts},
};

/* ---- runtime side ---- */

static int32_t vanilla_create(const void* payload, uint64_t size, void** state, char* error,
                              uint64_t error_size) {
  if (size != sizeof(int64_t) * P_COUNT) {
    strncpy(error, "the payload has the wrong size", (size_t)error_size - 1);
    return 1;
  }
  int64_t* p = malloc(size);
  if (p == NULL) {
    strncpy(error, "out of memory", (size_t)error_size - 1);
    return 1;
  }
  memcpy(p, payload, size);
  *state = p;
  return 0;
}

/* y[n,k,oh,ow] = max(0, b[k] + sum over c, r, s of x[n,c,ih,iw] * w[k,c,r,s]). */
static int32_t vanilla_run(void* state, void* const* args) {
  const int64_t* p = state;
  const float* x = args[p[P_X]];
  const float* w = args[p[P_WT]];
  const float* b = args[p[P_B]];
  float* y = args[p[P_Y]];
  for (int64_t n = 0; n < p[P_N]; ++n) {
    for (int64_t k = 0; k < p[P_K]; ++k) {
      for (int64_t oh = 0; oh < p[P_OH]; ++oh) {
        for (int64_t ow = 0; ow < p[P_OW]; ++ow) {
          float acc = b[k];
          for (int64_t c = 0; c < p[P_C]; ++c) {
            for (int64_t r = 0; r < p[P_R]; ++r) {
              int64_t ih = oh * p[P_SH] - p[P_PT] + r * p[P_DH];
              if (ih < 0 || ih >= p[P_H]) continue;
              for (int64_t s = 0; s < p[P_S]; ++s) {
                int64_t iw = ow * p[P_SW] - p[P_PL] + s * p[P_DW];
                if (iw < 0 || iw >= p[P_W]) continue;
                acc += x[((n * p[P_C] + c) * p[P_H] + ih) * p[P_W] + iw] *
                       w[((k * p[P_C] + c) * p[P_R] + r) * p[P_S] + s];
              }
            }
          }
          y[((n * p[P_K] + k) * p[P_OH] + oh) * p[P_OW] + ow] = acc > 0.0f ? acc : 0.0f;
        }
      }
    }
  }
  return 0;
}

static void vanilla_destroy(void* state) { free(state); }

static const KilnBackendRuntime kRuntime = {sizeof(KilnBackendRuntime), vanilla_create, vanilla_run,
                                            vanilla_destroy};

/* ---- the exported functions (the C ABI's names are snake_case) ---- */
/* NOLINTBEGIN(readability-identifier-naming) */

uint32_t kiln_extension_api_version(void) { return KILN_ABI_VERSION; }

/* Batch normalisations are folded into the convolutions before vanilla partitions, so that Conv,
 * BatchNormalization, Relu is a Conv with a bias and a Relu even at opt level 1, where kiln does
 * not fold them for its own code. */
static const char* const kPassesBefore[] = {"fold-batch-norm"};

int32_t kiln_extension_register(const KilnExtensionHost* host, KilnExtensionRegistrar* r) {
  KilnBackend backend;
  memset(&backend, 0, sizeof backend);
  backend.struct_size = sizeof backend;
  backend.name = "vanilla";
  backend.help = "Runs float32 Conv + bias + ReLU with a plain C kernel";
  backend.attrs = kAttrs;
  backend.num_attrs = 1;
  backend.patterns = kPatterns;
  backend.num_patterns = 1;
  backend.compile = vanilla_compile;
  backend.passes_before = kPassesBefore;
  backend.num_passes_before = 1;
  return host->add_backend(r, &backend) == 0 ? 0 : 1;
}

const KilnBackendRuntime* kiln_backend_runtime(const char* name) {
  return strcmp(name, "vanilla") == 0 ? &kRuntime : NULL;
}

/* NOLINTEND(readability-identifier-naming) */
