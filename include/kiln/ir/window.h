// Sliding-window geometry of Conv, MaxPool and AveragePool for graph nodes: src/opdef's rule
// (kiln/opdef/window.h), which the runtime's loops follow too, read through the node's view.
#pragma once

#include "kiln/ir/graph.h"
#include "kiln/opdef/window.h"

namespace kiln::ir {

using WindowGeometry = opdef::WindowGeometry;

// The window of NODE over the spatial dims INPUT with kernel KERNEL (Conv: the weights' spatial
// dims; pools: kernel_shape). Throws kiln::Error naming the node for invalid attributes or a
// window larger than the padded input.
WindowGeometry resolveWindow(const Node& node, const Shape& input, const Shape& kernel);

}  // namespace kiln::ir
