/* The dnnl backend's runtime side: each partition becomes a oneDNN primitive (a convolution or a
 * matmul with bias, sum and ReLU post-ops) created once, in the layouts oneDNN prefers. kiln's
 * plain tensors are reordered into them where they differ; the weights once, when a partition
 * first runs (their address is then fixed), the input and output on every run. Every buffer is
 * allocated when the partition is created, so a run allocates nothing; a partition runs one call
 * at a time. */
#include <dnnl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/runtime/offload_api.h"
#include "payload.h"

/* A tensor as kiln holds it (USER) and as the primitive wants it (PRIM), with the reorder between
 * them and a buffer in PRIM's layout when the two differ. */
typedef struct Operand {
  dnnl_memory_desc_t user, prim;
  dnnl_memory_t user_mem, prim_mem;
  dnnl_primitive_t to_prim, to_user; /* NULL when the layouts agree */
  void* buffer;
} Operand;

typedef struct State {
  DnnlPayload p;
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_t prim;
  Operand src, weights, dst;
  dnnl_memory_t bias_mem, scratch_mem;
  void* scratch;
  size_t dst_bytes;
  const void* packed_from; /* the weights the packed copy was made from */
  pthread_mutex_t lock;
} State;

#define TRY(call)                                                                               \
  do {                                                                                          \
    dnnl_status_t status_ = (call);                                                             \
    if (status_ != dnnl_success) {                                                              \
      snprintf(error, (size_t)error_size, "%s failed (oneDNN status %d)", #call, (int)status_); \
      goto fail;                                                                                \
    }                                                                                           \
  } while (0)

static void* aligned(size_t bytes) {
  void* p = NULL;
  return posix_memalign(&p, 64, bytes == 0 ? 64 : bytes) == 0 ? p : NULL;
}

static dnnl_status_t reorder(dnnl_engine_t engine, const dnnl_memory_desc_t* from,
                             const dnnl_memory_desc_t* to, dnnl_primitive_t* out) {
  dnnl_primitive_desc_t pd;
  dnnl_status_t s = dnnl_reorder_primitive_desc_create(&pd, from, engine, to, engine, NULL);
  if (s != dnnl_success) return s;
  s = dnnl_primitive_create(out, pd);
  dnnl_primitive_desc_destroy(pd);
  return s;
}

/* Sets up O for the layout the primitive chose (WHAT, queried from PD). */
static dnnl_status_t prepare(State* st, Operand* o, const_dnnl_primitive_desc_t pd,
                             dnnl_query_t what, int to_user) {
  o->prim = *dnnl_primitive_desc_query_md(pd, what, 0);
  dnnl_status_t s = dnnl_memory_create(&o->user_mem, &o->user, st->engine, DNNL_MEMORY_NONE);
  if (s != dnnl_success || dnnl_memory_desc_equal(&o->user, &o->prim)) return s;
  o->buffer = aligned(dnnl_memory_desc_get_size(&o->prim));
  if (o->buffer == NULL) return dnnl_out_of_memory;
  s = dnnl_memory_create(&o->prim_mem, &o->prim, st->engine, o->buffer);
  if (s != dnnl_success) return s;
  s = reorder(st->engine, &o->user, &o->prim, &o->to_prim);
  if (s == dnnl_success && to_user) s = reorder(st->engine, &o->prim, &o->user, &o->to_user);
  return s;
}

static void release(Operand* o) {
  if (o->to_prim) dnnl_primitive_destroy(o->to_prim);
  if (o->to_user) dnnl_primitive_destroy(o->to_user);
  if (o->user_mem) dnnl_memory_destroy(o->user_mem);
  if (o->prim_mem) dnnl_memory_destroy(o->prim_mem);
  free(o->buffer);
}

static void destroy(void* state) {
  State* st = state;
  if (st == NULL) return;
  release(&st->src);
  release(&st->weights);
  release(&st->dst);
  if (st->bias_mem) dnnl_memory_destroy(st->bias_mem);
  if (st->scratch_mem) dnnl_memory_destroy(st->scratch_mem);
  if (st->prim) dnnl_primitive_destroy(st->prim);
  if (st->stream) dnnl_stream_destroy(st->stream);
  if (st->engine) dnnl_engine_destroy(st->engine);
  free(st->scratch);
  pthread_mutex_destroy(&st->lock);
  free(st);
}

/* The operation's descriptors: kiln's plain layouts, and the primitive's, left to oneDNN. */
static dnnl_status_t describe_op(const DnnlPayload* p, State* st, dnnl_memory_desc_t* bias,
                                 dnnl_convolution_desc_t* conv, dnnl_matmul_desc_t* matmul) {
  dnnl_memory_desc_t src_any, wei_any, dst_any;
  dnnl_status_t s;
  if (p->kind == DNNL_KIND_CONV) {
    dnnl_dims_t src = {p->n, p->c, p->h, p->w}, dst = {p->n, p->k, p->oh, p->ow};
    dnnl_dims_t wei = {p->group, p->k / p->group, p->c / p->group, p->r, p->s};
    dnnl_dims_t b = {p->k};
    int wei_ndims = p->group > 1 ? 5 : 4;
    if (p->group == 1) memmove(wei, wei + 1, 4 * sizeof(dnnl_dim_t));
    dnnl_memory_desc_init_by_tag(&st->src.user, 4, src, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&st->dst.user, 4, dst, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&st->weights.user, wei_ndims, wei, dnnl_f32,
                                 p->group > 1 ? dnnl_goihw : dnnl_oihw);
    dnnl_memory_desc_init_by_tag(bias, 1, b, dnnl_f32, dnnl_x);
    dnnl_memory_desc_init_by_tag(&src_any, 4, src, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&dst_any, 4, dst, dnnl_f32, dnnl_format_tag_any);
    s = dnnl_memory_desc_init_by_tag(&wei_any, wei_ndims, wei, dnnl_f32, dnnl_format_tag_any);
    if (s != dnnl_success) return s;
    dnnl_dims_t strides = {p->stride[0], p->stride[1]};
    dnnl_dims_t dilates = {p->dilation[0] - 1, p->dilation[1] - 1};
    dnnl_dims_t pad_l = {p->pad_begin[0], p->pad_begin[1]};
    dnnl_dims_t pad_r = {p->pad_end[0], p->pad_end[1]};
    return dnnl_dilated_convolution_forward_desc_init(
        conv, dnnl_forward_inference, dnnl_convolution_direct, &src_any, &wei_any,
        p->arg_bias >= 0 ? bias : NULL, &dst_any, strides, dilates, pad_l, pad_r);
  }
  dnnl_dims_t src = {p->m, p->kk}, wei = {p->kk, p->nn}, dst = {p->m, p->nn}, b = {1, p->nn};
  dnnl_memory_desc_init_by_tag(&st->src.user, 2, src, dnnl_f32, dnnl_ab);
  dnnl_memory_desc_init_by_tag(&st->dst.user, 2, dst, dnnl_f32, dnnl_ab);
  dnnl_memory_desc_init_by_tag(&st->weights.user, 2, wei, dnnl_f32, p->trans_b ? dnnl_ba : dnnl_ab);
  dnnl_memory_desc_init_by_tag(bias, 2, b, dnnl_f32, dnnl_ab);
  s = dnnl_memory_desc_init_by_tag(&wei_any, 2, wei, dnnl_f32, dnnl_format_tag_any);
  if (s != dnnl_success) return s;
  return dnnl_matmul_desc_init(matmul, &st->src.user, &wei_any, p->arg_bias >= 0 ? bias : NULL,
                               &st->dst.user);
}

static int32_t create(const void* payload, uint64_t size, void** state, char* error,
                      uint64_t error_size) {
  dnnl_primitive_attr_t attr = NULL;
  dnnl_post_ops_t ops = NULL;
  dnnl_primitive_desc_t pd = NULL;
  State* st = calloc(1, sizeof *st);
  if (size != sizeof(DnnlPayload) || st == NULL) {
    snprintf(error, (size_t)error_size, "a payload of %llu bytes; expected %zu",
             (unsigned long long)size, sizeof(DnnlPayload));
    free(st);
    return 1;
  }
  pthread_mutex_init(&st->lock, NULL);
  memcpy(&st->p, payload, sizeof st->p);
  const DnnlPayload* p = &st->p;
  TRY(dnnl_engine_create(&st->engine, dnnl_cpu, 0));
  TRY(dnnl_stream_create(&st->stream, st->engine, dnnl_stream_default_flags));
  dnnl_memory_desc_t bias;
  dnnl_convolution_desc_t conv;
  dnnl_matmul_desc_t matmul;
  TRY(describe_op(p, st, &bias, &conv, &matmul));
  TRY(dnnl_post_ops_create(&ops));
  if (p->arg_sum >= 0) TRY(dnnl_post_ops_append_sum(ops, 1.0f));
  if (p->relu) TRY(dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
  TRY(dnnl_primitive_attr_create(&attr));
  TRY(dnnl_primitive_attr_set_post_ops(attr, ops));
  TRY(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
  const_dnnl_op_desc_t op =
      p->kind == DNNL_KIND_CONV ? (const_dnnl_op_desc_t)&conv : (const_dnnl_op_desc_t)&matmul;
  TRY(dnnl_primitive_desc_create(&pd, op, attr, st->engine, NULL));
  TRY(dnnl_primitive_create(&st->prim, pd));
  TRY(prepare(st, &st->src, pd, dnnl_query_src_md, 0));
  TRY(prepare(st, &st->weights, pd, dnnl_query_weights_md, 0));
  TRY(prepare(st, &st->dst, pd, dnnl_query_dst_md, 1));
  st->dst_bytes = dnnl_memory_desc_get_size(&st->dst.user);
  TRY(dnnl_memory_create(&st->bias_mem, &bias, st->engine, DNNL_MEMORY_NONE));
  const dnnl_memory_desc_t* scratch = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  st->scratch = aligned(dnnl_memory_desc_get_size(scratch));
  if (st->scratch == NULL) TRY(dnnl_out_of_memory);
  TRY(dnnl_memory_create(&st->scratch_mem, scratch, st->engine, st->scratch));
  dnnl_primitive_desc_destroy(pd);
  dnnl_primitive_attr_destroy(attr);
  dnnl_post_ops_destroy(ops);
  *state = st;
  return 0;
fail:
  if (pd) dnnl_primitive_desc_destroy(pd);
  if (attr) dnnl_primitive_attr_destroy(attr);
  if (ops) dnnl_post_ops_destroy(ops);
  destroy(st);
  return 1;
}

static dnnl_status_t run_reorder(State* st, dnnl_primitive_t r, dnnl_memory_t from,
                                 dnnl_memory_t to) {
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  return dnnl_primitive_execute(r, st->stream, 2, args);
}

/* The memory the primitive reads operand O from, after reordering DATA into it if needed. */
static dnnl_status_t bring_in(State* st, Operand* o, void* data, int reorder_now,
                              dnnl_memory_t* out) {
  dnnl_status_t s = dnnl_memory_set_data_handle(o->user_mem, data);
  if (s != dnnl_success) return s;
  if (o->to_prim == NULL) {
    *out = o->user_mem;
    return dnnl_success;
  }
  *out = o->prim_mem;
  return reorder_now ? run_reorder(st, o->to_prim, o->user_mem, o->prim_mem) : dnnl_success;
}

static int32_t run_locked(State* st, void* const* args) {
  const DnnlPayload* p = &st->p;
  dnnl_memory_t src, weights, dst;
  int pack = args[p->arg_weights] != st->packed_from;
  dnnl_status_t s = bring_in(st, &st->src, args[p->arg_src], 1, &src);
  if (s == dnnl_success) s = bring_in(st, &st->weights, args[p->arg_weights], pack, &weights);
  if (s == dnnl_success && pack) st->packed_from = args[p->arg_weights];
  /* The sum post-op adds to what DST holds: the residual, in the primitive's layout. */
  void* out = args[p->arg_dst];
  if (s == dnnl_success && p->arg_sum >= 0 && args[p->arg_sum] != out) {
    memcpy(out, args[p->arg_sum], st->dst_bytes);
  }
  if (s == dnnl_success) s = bring_in(st, &st->dst, out, p->arg_sum >= 0, &dst);
  if (s == dnnl_success && p->arg_bias >= 0) {
    s = dnnl_memory_set_data_handle(st->bias_mem, args[p->arg_bias]);
  }
  if (s != dnnl_success) return (int32_t)s;
  dnnl_exec_arg_t exec[5] = {{DNNL_ARG_SRC, src},
                             {DNNL_ARG_WEIGHTS, weights},
                             {DNNL_ARG_DST, dst},
                             {DNNL_ARG_SCRATCHPAD, st->scratch_mem},
                             {DNNL_ARG_BIAS, st->bias_mem}};
  s = dnnl_primitive_execute(st->prim, st->stream, p->arg_bias >= 0 ? 5 : 4, exec);
  if (s == dnnl_success && st->dst.to_user != NULL) {
    s = run_reorder(st, st->dst.to_user, st->dst.prim_mem, st->dst.user_mem);
  }
  if (s == dnnl_success) s = dnnl_stream_wait(st->stream);
  return (int32_t)s;
}

static int32_t run(void* state, void* const* args) {
  State* st = state;
  pthread_mutex_lock(&st->lock);
  int32_t status = run_locked(st, args);
  pthread_mutex_unlock(&st->lock);
  return status;
}

static const KilnBackendRuntime kRuntime = {sizeof(KilnBackendRuntime), create, run, destroy};

/* NOLINTBEGIN(readability-identifier-naming) */
uint32_t kiln_extension_api_version(void) { return KILN_ABI_VERSION; }

const KilnBackendRuntime* kiln_backend_runtime(const char* backend) {
  return strcmp(backend, "dnnl") == 0 ? &kRuntime : NULL;
}
/* NOLINTEND(readability-identifier-naming) */
