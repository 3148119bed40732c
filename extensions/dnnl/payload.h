/* What the dnnl backend's compile side tells its runtime side about one partition: a convolution
 * or a matrix product, with its fused epilogue, as fixed-size int64 fields. */
#ifndef KILN_EXTENSIONS_DNNL_PAYLOAD_H_
#define KILN_EXTENSIONS_DNNL_PAYLOAD_H_

#include <stdint.h>

enum { DNNL_KIND_CONV = 1, DNNL_KIND_MATMUL = 2 };

typedef struct DnnlPayload {
  int64_t kind;    /* DNNL_KIND_* */
  int64_t relu;    /* 1: a ReLU follows (an eltwise post-op) */
  int64_t arg_src; /* positions among the kernel's args; -1 when absent */
  int64_t arg_weights;
  int64_t arg_bias;
  int64_t arg_sum; /* the addend of a residual Add (a sum post-op) */
  int64_t arg_dst;
  /* Convolution: NCHW input, OIHW weights (grouped), NCHW output. */
  int64_t n, c, h, w, k, r, s, oh, ow, group;
  int64_t stride[2], dilation[2], pad_begin[2], pad_end[2];
  /* Matrix product: src [m, kk] times weights [kk, nn] (stored [nn, kk] when trans_b). */
  int64_t m, kk, nn, trans_b;
} DnnlPayload;

#endif /* KILN_EXTENSIONS_DNNL_PAYLOAD_H_ */
