// The geometry of a kiln.ConvBlocked node, shared by its dense and depthwise lowerings.
#pragma once

#include <cstdint>

#include "kiln/ir/graph.h"

namespace kiln::kernel {

struct ConvBlockedShape {
  int64_t n = 0, ic = 0, icb = 0, h = 0, w = 0;  // input (icb: channel blocks)
  int64_t oc = 0, ocb = 0, oh = 0, ow = 0;       // output
  int64_t kh = 0, kw = 0, sy = 1, sx = 1, dy = 1, dx = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;  // explicit pads
  int64_t block = 1;
  bool plainInput = false;
};

// Reads the node's attributes and its input and output types (already inferred).
ConvBlockedShape convBlockedShape(const ir::Node& node);

}  // namespace kiln::kernel
