// Reads the text form written by printer.h, for tests and golden files.
//
// Beyond what the printer writes, the parser accepts `// comments`, any whitespace layout,
// omitted `: types` (inferred; when given they must match inference) and constants generated as
//   %w = const float32[4,3,3,3] random(seed=7)                  // uniform in [-1, 1)
//   %v = const float32[4] random(seed=3, low=0.5, high=2.0)     // uniform in [low, high)
// (see random_tensor.h; at most 2^26 elements). elided(...) constants are rejected: their data is
// not in the text.
#pragma once

#include <memory>
#include <string>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// Parses TEXT and runs type inference on every node. Throws kiln::Error whose message starts
// with "line L:C: " (1-based) and says what was found and what was expected. The graph's ops come
// from OPS (null: the builtin registry).
std::unique_ptr<Graph> parseGraph(const std::string& text,
                                  std::shared_ptr<const OpRegistry> ops = nullptr);

// One type in the text form TensorType::str() writes ("float32[2,?]", "opt(seq(int64[*]))").
// Throws kiln::Error saying what was found and expected.
TensorType parseType(const std::string& text);

}  // namespace kiln::ir
