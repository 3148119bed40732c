// The IR's text form: readable, deterministic, and read back by parser.h.
//
//   graph main(%input: float32[1,3,8,8]) {
//     %w = const float32[4,3,3,3] elided(crc=0x1234abcd)  // more than 64 elements
//     %b = const float32[4] [0.1, 0.2, 0.3, 0.4]
//     %conv = Conv(%input, %w, %b) {pads=[1,1,1,1], strides=[1,1]} : float32[1,4,8,8]
//     %r = Relu[relu1](%conv) : float32[1,4,8,8] #group=0
//     return %r
//   }
//
// Constants come first (creation order), then nodes in topological order. `Op[name]` shows the
// node's name only when it differs from its first output's name. `_` is an omitted input. Floats
// print in the shortest form that reads back to the same bits (always with '.' or an exponent);
// attributes print sorted by name; an empty `[]` list is ints (floats[] / strings[] otherwise).
// A graph whose opset is not 13 prints `opset N` before `{`. Names outside [A-Za-z0-9_.] are
// quoted: %"onnx::Conv_12".
#pragma once

#include <string>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// Constants with more elements than this print as elided(crc=...), the CRC-32 of their bytes.
inline constexpr int64_t kMaxInlineElements = 64;

std::string printGraph(const Graph& graph);
// One node's line, without indentation or newline (for diagnostics).
std::string printNode(const Node& node);

}  // namespace kiln::ir
