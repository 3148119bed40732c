// Plain reference implementations of ONNX operators (naive loops, double accumulation), written
// from the ONNX specification and independent of kiln's lowering.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "op_harness.h"

namespace kiln::optest {

using Dims = std::vector<int64_t>;

// --- elementwise (reference_elementwise.cc) ---
HostTensor refUnary(const HostTensor& x, const std::function<double(double)>& f,
                    DataType outType = DataType::float32());
// numpy-style multidirectional broadcasting of any number of inputs.
Shape broadcastShapes(const std::vector<Shape>& shapes);
HostTensor refNary(const std::vector<const HostTensor*>& ins,
                   const std::function<double(const std::vector<double>&)>& f, DataType outType);
HostTensor refBinary(const HostTensor& a, const HostTensor& b,
                     const std::function<double(double, double)>& f,
                     DataType outType = DataType::float32());

// --- windows (reference_window.cc) ---
struct WindowParams {
  Dims kernel, strides, dilations, padsBegin, padsEnd;
  bool ceilMode = false;
};
// ONNX output size of each spatial dim (floor or ceil mode; a ceil-mode window never starts in
// the end padding).
Dims windowOutput(const Dims& spatial, const WindowParams& p);
// Pads for auto_pad SAME_UPPER / SAME_LOWER.
void samePads(const Dims& spatial, WindowParams& p, bool upper);

HostTensor refConv(const HostTensor& x, const HostTensor& w, const HostTensor* b,
                   const WindowParams& p, int64_t group);
enum class PoolKind { kMax, kAverage };
HostTensor refPool(const HostTensor& x, const WindowParams& p, PoolKind kind, bool countIncludePad);
HostTensor refGlobalPool(const HostTensor& x, PoolKind kind);

// --- linear algebra and normalization (reference_linalg.cc) ---
HostTensor refGemm(const HostTensor& a, const HostTensor& b, const HostTensor* c, bool transA,
                   bool transB, double alpha, double beta);
HostTensor refMatMul(const HostTensor& a, const HostTensor& b);
HostTensor refSoftmax(const HostTensor& x, int64_t axis);
HostTensor refBatchNorm(const HostTensor& x, const HostTensor& scale, const HostTensor& bias,
                        const HostTensor& mean, const HostTensor& var, double eps);
enum class ReduceKind { kSum, kMean, kMax };
HostTensor refReduce(const HostTensor& x, const Dims& axes, bool keepDims, ReduceKind kind);

// --- data movement (reference_injective.cc) ---
HostTensor refTranspose(const HostTensor& x, const Dims& perm);
HostTensor refSlice(const HostTensor& x, const Dims& starts, const Dims& ends, const Dims& axes,
                    const Dims& steps);
HostTensor refGather(const HostTensor& x, const HostTensor& indices, int64_t axis);
HostTensor refConcat(const std::vector<const HostTensor*>& xs, int64_t axis);
HostTensor refExpand(const HostTensor& x, const Shape& shape);
HostTensor reshaped(HostTensor x, const Shape& shape);

// Multi-index helpers.
Dims stridesOf(const Shape& shape);
Dims unravel(int64_t flat, const Shape& shape);
int64_t ravel(const Dims& idx, const Shape& shape);

}  // namespace kiln::optest
