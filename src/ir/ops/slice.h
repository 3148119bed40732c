// Slice's resolved index ranges, shared by its type inference and constant evaluation.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir::ops {

// Per input dim: output element k reads input index start + k * step, for k < size.
struct SliceRange {
  int64_t start = 0;
  int64_t step = 1;
  int64_t size = 0;
};

// Slice NODE's ranges for every dim of its input (untouched dims: start 0, step 1, full size),
// from constant inputs (opset >= 10) or attributes (before), clamped as ONNX specifies.
std::vector<SliceRange> resolveSlice(const Node& node);

}  // namespace kiln::ir::ops
