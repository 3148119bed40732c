// Micro-kernels: register-blocked inner loops written directly in vector loop IR, so that every
// conv and GEMM schedule gets the same explicit FMA code on every ISA instead of relying on LLVM's
// loop vectoriser.
//
// Naming grammar: <dtype>_<op>_<MR>x<NR>_<isa>, e.g. f32_gemm_6x64_avx512:
//   dtype  element type of A, B and C (f32);
//   op     gemm   C[MR x NR] += A[MR x K] * B[K x NR]: each A element broadcast, each B row
//   NR/lanes
//                 vectors (convolutions are gemms whose K runs over input channels and taps);
//          dwconv C[MR pixels x NR channels] += X[taps, pixels, channels] * W[taps, channels], lane
//                 by lane (depthwise convolution, channels in the vector lanes);
//   MR x NR the register tile: MR rows (output pixels or GEMM rows) by NR columns (output channels
//          or GEMM columns; NR = vectors x lanes);
//   isa    the vector instruction set: avx512 (16 fp32 lanes), avx2 (8), avx (8), sse (4), neon
//   (4),
//          scalar (1).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kiln/kernel/target_model.h"
#include "kiln/tir/prim_func.h"

namespace kiln::kernel::ukernel {

// Returns a variable name not used before in the kernel being built, from a hint.
using NameFn = std::function<std::string(const std::string& hint)>;

// One loop over the reduction dimension: EXTENT iterations, each moving the A operand by A_STRIDE
// and the B operand by B_STRIDE elements.
struct ReductionLoop {
  tir::Expr extent;
  int64_t aStride = 0;
  int64_t bStride = 0;
};

// A register tile C[MR x NV*lanes] += A * B accumulated in ACC (local, MR*NV*lanes elements,
// element (r, c) at r*NV*lanes + c, read first and written last, so a caller zeroes it, seeds it
// with a bias, or carries it across calls):
//   A(r, k) = a[aBase + r*aRowStride + sum_i k_i * loops[i].aStride], broadcast to all lanes;
//   B(k, v) = b[bBase + v*bVectorStride + sum_i k_i * loops[i].bStride + 0 .. lanes-1].
// The loops run outer to inner; the innermost is unrolled UNROLL times.
struct GemmTile {
  int mr = 1;
  int nv = 1;  // vectors per row of the tile
  int unroll = 1;
  int64_t aRowStride = 0;
  int64_t bVectorStride = 0;
  std::vector<ReductionLoop> loops;
};

struct GemmOperands {
  tir::Buffer a, b, acc;
  tir::Expr aBase, bBase;
};

std::string gemmName(const GemmTile& tile, const TargetModel& target);
tir::Stmt gemmTile(const GemmTile& tile, const TargetModel& target, const GemmOperands& ops,
                   const NameFn& names);

// A depthwise tile: MR output pixels by one vector of channels, accumulated in ACC (MR vectors,
// read first, written last) over the kernel taps:
//   acc[r] += x[xBase + r*xPixelStride + k*xRowStep + c*xColStep + 0..lanes-1]
//           * w[wBase + k*wRowStep + c*wColStep + 0..lanes-1]
// for kernel rows k in [0, rows) and columns c in [firstCol, firstCol + cols) (unrolled).
struct DwconvTile {
  int mr = 1;
  int64_t xPixelStride = 0;
  tir::Expr rows;
  int64_t xRowStep = 0, wRowStep = 0;
  int64_t firstCol = 0, cols = 1;
  int64_t xColStep = 0, wColStep = 0;
};

struct DwconvOperands {
  tir::Buffer x, w, acc;
  tir::Expr xBase, wBase;
};

std::string dwconvName(const DwconvTile& tile, const TargetModel& target);
tir::Stmt dwconvTile(const DwconvTile& tile, const TargetModel& target, const DwconvOperands& ops,
                     const NameFn& names);

// The micro-kernels on their own, as kernels named gemmName() / dwconvName(), for inspecting the
// generated code and benchmarking it:
//   gemm:   C = A[MR x K] (row-major) times B (K rows of NV*lanes, packed);
//   conv:   the gemm tile as a blocked 3x3 convolution uses it: MR pixels of a row by NV output
//           blocks, reduced over 2 input blocks x 3 x 3 taps x the lanes of a block;
//   dwconv: MR pixels of a 3x3 depthwise convolution, one vector of channels.
tir::PrimFunc gemmUkernel(int mr, int nv, int64_t k, const TargetModel& target);
tir::PrimFunc convUkernel(int mr, int nv, const TargetModel& target);
tir::PrimFunc dwconvUkernel(int mr, const TargetModel& target);

}  // namespace kiln::kernel::ukernel
