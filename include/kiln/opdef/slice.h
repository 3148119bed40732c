// Slice's index ranges: ONNX's clamping of starts and ends, negative steps and the INT_MAX "to the
// end" convention, for the compiler's shape inference and constant folding and the runtime's copy.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

// Per input dim: output element k reads input index start + k * step, for k < size. SIZE is
// kUnknownDim when the dim's size or the slice's arguments are known only at run time.
struct SliceRange {
  int64_t start = 0;
  int64_t step = 1;
  int64_t size = 0;
  bool whole = false;  // a dim the Slice does not touch: all of it, whatever its size
};

// The ranges of every dim of input 0 (untouched dims: start 0, step 1, full size), from inputs 1-4
// (opset >= 10) or the starts/ends/axes attributes (before).
std::vector<SliceRange> sliceRanges(const OpView& op);
Dims sliceShape(const std::vector<SliceRange>& ranges);
// The output dims with sizes: an untouched dim keeps its (possibly symbolic) size.
DimList sliceDims(const OpView& op);

// Per dim of input 0: the output's size, where the output starts in the input and the step. An
// untouched dim starts at 0; a unit-step slice whose start or end is a size in the graph's
// symbols (a cache length) gets sizes in them where the bounds prove ONNX's clamping changes
// nothing, else unknown sizes and starts (as sliceDims).
struct SliceDims {
  DimList sizes, starts;
  std::vector<int64_t> steps;
};
SliceDims sliceDimRanges(const OpView& op);

// One dim's range for START, END (indices as ONNX gives them: negative from the end, clamped) and
// STEP (non-zero) over a dim of size DIM.
SliceRange clampSliceRange(int64_t start, int64_t end, int64_t step, int64_t dim);

}  // namespace kiln::opdef
