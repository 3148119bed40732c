// Calling the runtime's op implementations (kiln/runtime/runtime_op.h) from the compiler's side:
// the attributes a runtime-op kernel carries, and evaluating a node with them on concrete inputs
// (the reference evaluator's fallback for ops only the runtime executes).
#pragma once

#include <vector>

#include "kiln/ir/graph.h"
#include "kiln/support/json.h"

namespace kiln::ir {

// NODE's attributes as a runtime op reads them: ints, floats, strings and their lists as JSON,
// a tensor as {dtype, shape, data (base64)}; kiln's own "kiln.*" marks are left out, but for
// kiln.batched (the batch axis of a Scan of opset 8), which the runtime reads.
Json runtimeOpAttrs(const Attrs& attrs);

// NODE's outputs on INPUTS (an undefined array for an omitted input), computed by the runtime's
// implementation of its op; each output has the shape the values give it. Throws kiln::Error
// naming the node when the runtime has no implementation or the values are invalid.
std::vector<NDArray> runRuntimeOp(const Node& node, const std::vector<NDArray>& inputs);

}  // namespace kiln::ir
