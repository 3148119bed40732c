// Compile-time re-layout of constant tensors into the orders kiln's blocked kernels read: conv
// weights and biases blocked over channels, broadcast operands of blocked elementwise ops, and
// GEMM right-hand sides in column panels. Every packed array is zero-padded unless told otherwise.
#pragma once

#include <cstdint>

#include "kiln/runtime/ndarray.h"

namespace kiln::transform {

using runtime::NDArray;

// OIHW -> [OC/b, IC/b, KH, KW, b(in), b(out)].
NDArray packConvWeightsBlocked(const NDArray& w, int64_t block);
// OIHW -> [OC/b, IC, KH, KW, b(out)]: for inputs kept in NCHW (few input channels).
NDArray packConvWeightsPlainInput(const NDArray& w, int64_t block);
// [C, 1, KH, KW] -> [C/b, KH, KW, b].
NDArray packDepthwiseWeights(const NDArray& w, int64_t block);
// [C] -> [C/b * b].
NDArray packBias(const NDArray& bias, int64_t block);
// A constant of rank <= 4 that broadcasts against an NCHW tensor of CHANNELS channels -> the
// equivalent operand of its NCHW[b]c form: [a, c, h, w] becomes [a, C/b, h, w, b] when c equals
// CHANNELS (padded lanes hold FILL) and [a, 1, h, w, 1] when c is 1.
NDArray blockConstant(const NDArray& c, int64_t channels, int64_t block, double fill);
// B [K, N] (TRANSPOSED: [N, K]) -> [N/b, K, b].
NDArray packMatmulB(const NDArray& b, bool transposed, int64_t block);

}  // namespace kiln::transform
