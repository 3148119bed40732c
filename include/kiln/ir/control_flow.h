// Control flow: If, Loop and Scan, whose bodies are subgraphs (GraphAttr). A body's inputs are
// its formal inputs (Loop: iteration number, condition, loop-carried values; Scan: states, then
// one slice of each scanned input; If: none), then the values of enclosing graphs it reads, which
// its node takes as its last `kiln.captured` inputs; after those, a compiled node may take the
// bodies' weights as inputs (`kiln.hoisted`, see kiln/driver/compile_bodies.h).
#pragma once

#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// Whether NODE has subgraphs (If, Loop, Scan).
bool hasSubgraphs(const Node& node);

// The graph attributes an op of type OP takes (If: then_branch and else_branch; Loop and Scan:
// body); empty for an op without bodies.
std::vector<std::string> bodyAttributes(const std::string& op);

// The inputs NODE has as an ONNX node (omitted ones included): not the captured values and
// hoisted weights that follow them.
size_t formalInputCount(const Node& node);

// The types a node of op OP (with ATTRS, in a graph of OPSET) gives the formal inputs of its body
// ATTR, from its formal INPUTS (nullptr for an omitted one); loop-carried values start with the
// types of their initial values. Throws kiln::Error naming LABEL.
std::vector<TensorType> bodyInputTypes(const std::string& label, const std::string& op,
                                       const Attrs& attrs, int64_t opset,
                                       const std::vector<const TensorType*>& inputs,
                                       const std::string& attr);

// For Loop and Scan: FORMAL (the body's formal input types) with every dim a loop-carried value
// changes from one iteration to the next (its type in BODY_OUTPUTS differs) made kDynamicDim.
// Equal to FORMAL once the body is typed for every iteration. Throws kiln::Error naming LABEL
// when a carried value changes its dtype or rank.
std::vector<TensorType> widenCarried(const std::string& label, const std::string& op,
                                     const Attrs& attrs, const std::vector<TensorType>& formal,
                                     const std::vector<TensorType>& bodyOutputs);

}  // namespace kiln::ir
