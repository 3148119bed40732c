// Reference evaluation of graph nodes and whole graphs: the oracle `kiln compare` checks compiled
// models against. Every op goes through plain code written from the ONNX specification (the
// exact evaluators of constant_eval.h for data movement and integer/boolean arithmetic, the naive
// loops of reference.h for the rest), never through kiln's lowering or code generation.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir::reference {

// Whether evaluateNode knows OP (it may still refuse some attributes or dtypes, with a message).
bool hasReference(const std::string& op);

// NODE's outputs, from INPUTS (one per node input, in order; an omitted optional input is an
// NDArray with no data), for a graph of OPSET. The outputs take the types of NODE's outputs, so
// NODE must be typed (an imported graph is). Floating-point results are computed in double and
// rounded once to the output dtype. Throws kiln::Error naming the node when the op, an attribute
// or a dtype has no reference.
std::vector<NDArray> evaluateNode(const Node& node, const std::vector<NDArray>& inputs,
                                  int64_t opset);

// Called with each node and its outputs, in graph order.
using NodeSink = std::function<void(const Node& node, const std::vector<NDArray>& outputs)>;

// Evaluates GRAPH from INPUTS (one per graph input, in order, of the input's type; checked) and
// hands every node's outputs to SINK. Returns the graph outputs. A value is freed after its last
// use unless SINK keeps it.
std::vector<NDArray> evaluateGraph(const Graph& graph, const std::vector<NDArray>& inputs,
                                   const NodeSink& sink = {});

}  // namespace kiln::ir::reference
