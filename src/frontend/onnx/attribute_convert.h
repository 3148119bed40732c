// Conversion of ONNX node attributes into kiln's typed attribute map.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "kiln/ir/graph.h"

namespace kiln::frontend::onnx {

// Converts every attribute of NODE; throws kiln::Error naming NODEDESC and the attribute for
// kinds kiln does not support (graphs, sparse tensors, type protos).
ir::Attrs convertAttributes(const ::onnx::NodeProto& node, const std::string& nodeDesc);

}  // namespace kiln::frontend::onnx
