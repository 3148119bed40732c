// The operator registry: every op the compiler knows, with its class and shape inference.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// How an op may fuse (TVM's pattern kinds): elementwise and broadcast ops fuse into a producer's
// epilogue or into one loop; injective ops (reshape, concat) only with each other; reductions and
// complex ops (conv, matmul, pooling) anchor a group.
enum class OpClass { kElementwise, kBroadcast, kInjective, kReduction, kComplex, kOpaque };
const char* opClassName(OpClass c);

struct OpDef {
  std::string name;
  OpClass opClass = OpClass::kOpaque;
  int minInputs = 1;
  int maxInputs = 1;
  int numOutputs = 1;
  int sinceVersion = 1;  // the oldest ONNX opset whose semantics kiln implements
  // Sets the types of node.outputs from the input types and attributes; throws kiln::Error
  // naming the node, what it received and what it expected.
  std::function<void(Node& node)> inferTypes;
};

// nullptr when the op is unknown.
const OpDef* findOp(const std::string& name);
std::vector<std::string> registeredOps();

// Runs the op's shape inference on NODE (after checking its input count).
void inferTypes(Node& node);

}  // namespace kiln::ir
