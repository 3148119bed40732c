/* The dnnl backend's compile side: it claims float32 convolutions and matrix products with
 * constant weights, with their epilogues (a bias, a residual Add, a ReLU), and describes each in a
 * DnnlPayload for the runtime side (runtime.c), which runs them with oneDNN. */
#include <string.h>

#include "kiln/extension/extension_api.h"
#include "payload.h"

/* The input K of node I of M: 0 with *T filled, else non-zero. */
static int input(const KilnMatch* m, uint32_t i, int32_t k, KilnTensorInfo* t) {
  return m->api->input(m->nodes[i], k, t);
}

/* The position among the kernel's args of input K of node I (-1: inside the chain or absent). */
static int64_t arg_of(const KilnMatch* m, uint32_t i, int32_t k) {
  int32_t base = 0;
  for (uint32_t j = 0; j < i; ++j) base += m->api->num_inputs(m->nodes[j]);
  return m->arg_index[base + k];
}

static int is_f32(const KilnTensorInfo* t) { return strcmp(t->dtype, "float32") == 0; }

static int64_t numel(const KilnTensorInfo* t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->rank; ++d) n *= t->shape[d];
  return n;
}

static int same_shape(const KilnTensorInfo* a, const KilnTensorInfo* b) {
  if (a->rank != b->rank) return 0;
  for (int32_t d = 0; d < a->rank; ++d) {
    if (a->shape[d] != b->shape[d]) return 0;
  }
  return 1;
}

/* Reads a list attribute of WANT values into OUT; absent: DEFAULT_VALUE each. */
static int ints_attr(const KilnMatch* m, const char* name, int64_t dflt, int64_t* out,
                     int32_t want) {
  const int64_t* values = NULL;
  int32_t count = 0;
  int32_t status = m->api->attr_ints(m->nodes[0], name, &values, &count);
  for (int32_t i = 0; i < want; ++i) out[i] = status == 1 ? dflt : (i < count ? values[i] : 0);
  return status == 1 || (status == 0 && count == want) ? 0 : -1;
}

static int describe_conv(const KilnMatch* m, DnnlPayload* p) {
  KilnTensorInfo x, w, b, y;
  if (input(m, 0, 0, &x) != 0 || input(m, 0, 1, &w) != 0) return -1;
  if (!is_f32(&x) || !is_f32(&w) || x.rank != 4 || w.rank != 4 || w.data == NULL) return -1;
  if (m->api->output(m->nodes[0], 0, &y) != 0) return -1;
  int32_t has_bias = input(m, 0, 2, &b) == 0;
  if (has_bias && (b.data == NULL || !is_f32(&b))) return -1;
  const char* auto_pad = "NOTSET";
  if (m->api->attr_string(m->nodes[0], "auto_pad", &auto_pad) < 0) return -1;
  if (strcmp(auto_pad, "NOTSET") != 0 && strcmp(auto_pad, "VALID") != 0) return -1;
  int64_t pads[4];
  p->group = 1;
  if (m->api->attr_int(m->nodes[0], "group", &p->group) < 0) return -1;
  if (ints_attr(m, "strides", 1, p->stride, 2) != 0 ||
      ints_attr(m, "dilations", 1, p->dilation, 2) != 0 || ints_attr(m, "pads", 0, pads, 4) != 0) {
    return -1;
  }
  p->kind = DNNL_KIND_CONV;
  p->n = x.shape[0], p->c = x.shape[1], p->h = x.shape[2], p->w = x.shape[3];
  p->k = w.shape[0], p->r = w.shape[2], p->s = w.shape[3];
  p->oh = y.shape[2], p->ow = y.shape[3];
  p->pad_begin[0] = pads[0], p->pad_begin[1] = pads[1];
  p->pad_end[0] = pads[2], p->pad_end[1] = pads[3];
  p->arg_src = arg_of(m, 0, 0), p->arg_weights = arg_of(m, 0, 1);
  p->arg_bias = has_bias ? arg_of(m, 0, 2) : -1;
  return p->group > 0 && p->c % p->group == 0 && p->k % p->group == 0 &&
                 w.shape[1] * p->group == p->c
             ? 0
             : -1;
}

static int describe_matmul(const KilnMatch* m, DnnlPayload* p) {
  const char* op = m->api->op(m->nodes[0]);
  KilnTensorInfo a, b, c;
  if (input(m, 0, 0, &a) != 0 || input(m, 0, 1, &b) != 0) return -1;
  if (!is_f32(&a) || !is_f32(&b) || a.rank < 2 || b.rank != 2 || b.data == NULL) return -1;
  p->kind = DNNL_KIND_MATMUL;
  p->trans_b = 0;
  p->arg_src = arg_of(m, 0, 0), p->arg_weights = arg_of(m, 0, 1), p->arg_bias = -1;
  if (strcmp(op, "Gemm") == 0) {
    int64_t trans_a = 0;
    double alpha = 1.0, beta = 1.0;
    if (m->api->attr_int(m->nodes[0], "transA", &trans_a) < 0 || trans_a != 0) return -1;
    if (m->api->attr_int(m->nodes[0], "transB", &p->trans_b) < 0) return -1;
    if (m->api->attr_float(m->nodes[0], "alpha", &alpha) < 0 || alpha != 1.0) return -1;
    if (m->api->attr_float(m->nodes[0], "beta", &beta) < 0) return -1;
    if (input(m, 0, 2, &c) == 0) {
      int64_t n = p->trans_b ? b.shape[0] : b.shape[1];
      if (beta != 1.0 || c.data == NULL || !is_f32(&c) || numel(&c) != n || c.rank > 2) return -1;
      if (c.rank == 2 && c.shape[0] != 1) return -1;
      p->arg_bias = arg_of(m, 0, 2);
    }
    if (a.rank != 2) return -1;
  }
  p->kk = p->trans_b ? b.shape[1] : b.shape[0];
  p->nn = p->trans_b ? b.shape[0] : b.shape[1];
  if (a.shape[a.rank - 1] != p->kk) return -1;
  p->m = numel(&a) / p->kk;
  return 0;
}

/* The Add and Relu after the anchor: a bias (a constant of N values, for a matrix product), or a
 * residual (a computed tensor of the output's shape); then the ReLU. */
static int describe_epilogue(const KilnMatch* m, DnnlPayload* p) {
  p->relu = 0;
  p->arg_sum = -1;
  KilnTensorInfo y;
  m->api->output(m->nodes[0], 0, &y);
  for (uint32_t i = 1; i < m->num_nodes; ++i) {
    const char* op = m->api->op(m->nodes[i]);
    if (strcmp(op, "Relu") == 0) {
      p->relu = 1;
      continue;
    }
    int32_t k = arg_of(m, i, 0) >= 0 ? 0 : 1; /* the input that is not the anchor's output */
    KilnTensorInfo t;
    if (arg_of(m, i, k) < 0 || input(m, i, k, &t) != 0 || !is_f32(&t)) return -1;
    if (t.data == NULL && same_shape(&t, &y)) {
      p->arg_sum = arg_of(m, i, k);
    } else if (t.data != NULL && p->kind == DNNL_KIND_MATMUL && p->arg_bias < 0 &&
               numel(&t) == p->nn && t.shape[t.rank - 1] == p->nn) {
      p->arg_bias = arg_of(m, i, k);
    } else {
      return -1;
    }
  }
  p->arg_dst = (int64_t)m->num_args - 1;
  return 0;
}

static int describe(const KilnMatch* m, DnnlPayload* p) {
  memset(p, 0, sizeof *p);
  const char* op = m->api->op(m->nodes[0]);
  int status = strcmp(op, "Conv") == 0 ? describe_conv(m, p) : describe_matmul(m, p);
  return status == 0 ? describe_epilogue(m, p) : -1;
}

/* --target-dnnl-ops: a comma-separated list of the families to offload. */
static int family_enabled(const KilnMatch* m, const char* family) {
  const char* ops = m->api->target_attr(m, "ops");
  size_t n = strlen(family);
  for (const char* at = strstr(ops, family); at != NULL; at = strstr(at + 1, family)) {
    int starts = at == ops || at[-1] == ',';
    int ends = at[n] == '\0' || at[n] == ',';
    if (starts && ends) return 1;
  }
  return 0;
}

static int32_t accepts(void* user_data, const KilnMatch* m) {
  (void)user_data;
  DnnlPayload p;
  if (describe(m, &p) != 0) return 0;
  return family_enabled(m, p.kind == DNNL_KIND_CONV ? "conv" : "matmul");
}

static int32_t compile(void* user_data, const KilnMatch* m) {
  (void)user_data;
  DnnlPayload p;
  if (describe(m, &p) != 0) {
    m->api->set_error(m, "not a float32 Conv, MatMul or Gemm with constant weights");
    return 1;
  }
  m->api->set_payload(m, &p, sizeof p);
  return 0;
}

static const KilnTargetAttr kAttrs[] = {
    {"ops", KILN_ATTR_STRING, "conv,matmul",
     "The op families to offload, comma-separated: conv, matmul"},
};

static const KilnPattern kPatterns[] = {
    {"conv", "Conv Add? Relu?", accepts},
    {"matmul", "MatMul|Gemm Add? Relu?", accepts},
};

/* NOLINTBEGIN(readability-identifier-naming) */
int32_t kiln_extension_register(const KilnExtensionHost* host, KilnExtensionRegistrar* r) {
  KilnBackend backend;
  memset(&backend, 0, sizeof backend);
  backend.struct_size = sizeof backend;
  backend.name = "dnnl";
  backend.help =
      "Runs float32 convolutions and matrix products, with their bias, residual Add "
      "and ReLU, with oneDNN";
  backend.attrs = kAttrs;
  backend.num_attrs = 1;
  backend.patterns = kPatterns;
  backend.num_patterns = 2;
  backend.compile = compile;
  return host->add_backend(r, &backend) == 0 ? 0 : 1;
}
/* NOLINTEND(readability-identifier-naming) */
