// Models of opsets 1 to 6 read in their opset-7 form: every node whose definition changed before
// opset 7 (the `consumed_inputs` in-place hints, `broadcast`/`axis` on binary ops, `is_test`,
// PRelu's per-channel slope, Reshape's shape attribute, ...) is rewritten into the nodes that
// compute the same in opset 7, so the rest of kiln knows one form of each op.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::frontend::onnx {

// The opset a model older than it is imported as.
constexpr int64_t kLegacyTargetOpset = 7;

// What a rewrite may ask about the values a node reads.
struct LegacyContext {
  int64_t opset = 0;  // the model's (below kLegacyTargetOpset)
  std::string label;  // "node 'n' (op 'Add', opset 6)", for errors
  std::function<const ir::Value*(const std::string& name)> value;  // null for an unknown name
  std::function<std::string(const std::string& base)> freshName;   // an unused value name
};

// NODE in its opset-7 form: the nodes to import in its place (new inputs come first, as
// Constant or Unsqueeze nodes), or nullopt when NODE means the same in opset 7. Throws
// kiln::Error naming the node when its old form is one kiln cannot rewrite.
std::optional<std::vector<::onnx::NodeProto>> upgradeLegacyNode(const ::onnx::NodeProto& node,
                                                                const LegacyContext& context);

}  // namespace kiln::frontend::onnx
