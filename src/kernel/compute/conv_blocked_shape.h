// The geometry of a kiln.ConvBlocked node, shared by its dense and depthwise lowerings.
#pragma once

#include <cstdint>
#include <utility>

#include "kiln/ir/graph.h"
#include "kiln/tir/expr.h"

namespace kiln::kernel {

struct ConvBlockedShape {
  int64_t n = 0, ic = 0, icb = 0, h = 0, w = 0;  // input (icb: channel blocks)
  int64_t ocb = 0, oh = 0, ow = 0;               // output
  int64_t kh = 0, kw = 0, sy = 1, sx = 1, dy = 1, dx = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;  // explicit pads
  int64_t block = 1;
  bool plainInput = false;

  // The kernel rows [first, first + count) that output row OH reads inside the input.
  std::pair<tir::Expr, tir::Expr> kernelRows(const tir::Expr& oh) const;
};

// Reads the node's attributes and its input and output types (already inferred).
ConvBlockedShape convBlockedShape(const ir::Node& node);

}  // namespace kiln::kernel
