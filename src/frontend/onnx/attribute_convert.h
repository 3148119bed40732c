// Conversion of ONNX node attributes into kiln's typed attribute map.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "kiln/ir/graph.h"

namespace kiln::frontend::onnx {

// Converts every attribute of NODE; throws kiln::Error naming NODEDESC and the attribute for
// kinds kiln does not support (sparse tensors, type protos, and graphs unless SKIP_GRAPHS: the
// importer imports the bodies of control-flow nodes itself).
ir::Attrs convertAttributes(const ::onnx::NodeProto& node, const std::string& nodeDesc,
                            bool skipGraphs = false);

}  // namespace kiln::frontend::onnx
