// Plain reference implementations of ONNX operators (naive loops over doubles), written from the
// ONNX specification and independent of kiln's lowering and code generation: the oracle of the
// operator tests and of `kiln compare`. evaluateNode (reference_eval.h) dispatches a graph node to
// them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir::reference {

using Dims = std::vector<int64_t>;

// A host tensor for references: every dtype is held as double.
struct HostTensor {
  Shape shape;
  DataType dtype = DataType::float32();
  std::vector<double> data;

  int64_t numel() const { return runtime::shapeNumel(shape); }
  double& at(int64_t i) { return data[static_cast<size_t>(i)]; }
  double at(int64_t i) const { return data[static_cast<size_t>(i)]; }
};

HostTensor zeros(const Shape& shape, DataType dtype = DataType::float32());
// Rounds every element to DTYPE (float32/float16/bfloat16 rounding, integer truncation, bool).
HostTensor rounded(HostTensor t);
// Conversions for every scalar dtype constants may hold (isScalarElementType).
NDArray toNDArray(const HostTensor& t);
HostTensor fromNDArray(const NDArray& a);

// Max and min as ONNX, numpy and PyTorch define them for floats: a NaN operand gives NaN.
inline double nanMax(double a, double b) { return a != a || b != b ? a + b : (a < b ? b : a); }
inline double nanMin(double a, double b) { return a != a || b != b ? a + b : (b < a ? b : a); }

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
// The scatter definition: every input element adds its weighted, dilated kernel window into the
// output (shape OUT) at input position * stride - PADS_BEGIN.
HostTensor refConvTranspose(const HostTensor& x, const HostTensor& w, const HostTensor* b,
                            const Shape& out, const Dims& strides, const Dims& dilations,
                            const Dims& padsBegin, int64_t group);
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

// --- more reductions and normalizations (reference_reduce.cc) ---
// OP is the ONNX name: ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
// ReduceSumSquare (and ReduceSum/Mean/Max). Empty AXES reduce everything. Keeps X's dtype.
HostTensor refReduceOp(const HostTensor& x, const std::string& op, const Dims& axes, bool keepDims);
HostTensor refArgReduce(const HostTensor& x, bool isMax, int64_t axis, bool keepDims,
                        bool selectLast);
// Opset-13 Hardmax along AXIS: 1 at the first maximum, 0 elsewhere.
HostTensor refHardmax(const HostTensor& x, int64_t axis);
HostTensor refGlobalLpPool(const HostTensor& x, int64_t p);
// Normalizes over the dims from AXIS on; SCALE and BIAS (may be null) broadcast numpy-style.
HostTensor refLayerNorm(const HostTensor& x, const HostTensor& scale, const HostTensor* bias,
                        int64_t axis, double eps);
HostTensor refInstanceNorm(const HostTensor& x, const HostTensor& scale, const HostTensor& bias,
                           double eps);
HostTensor refLrn(const HostTensor& x, int64_t size, double alpha, double beta, double bias);

// --- more data movement (reference_movement.cc) ---
// PADS holds every dim's begin, then every dim's end (ONNX order). MODE: constant, edge, reflect,
// wrap.
HostTensor refPad(const HostTensor& x, const Dims& pads, const std::string& mode, double value);
HostTensor refTile(const HostTensor& x, const Dims& repeats);
// Trilu: keeps the elements of the last two axes on and above (UPPER) or on and below diagonal K.
HostTensor refTrilu(const HostTensor& x, int64_t k, bool upper);
std::vector<HostTensor> refSplit(const HostTensor& x, int64_t axis, const Dims& sizes);
HostTensor refGatherElements(const HostTensor& x, const HostTensor& indices, int64_t axis);
HostTensor refDepthToSpace(const HostTensor& x, int64_t block, bool crd);
HostTensor refSpaceToDepth(const HostTensor& x, int64_t block);

// Multi-index helpers.
Dims stridesOf(const Shape& shape);
Dims unravel(int64_t flat, const Shape& shape);
int64_t ravel(const Dims& idx, const Shape& shape);

}  // namespace kiln::ir::reference
