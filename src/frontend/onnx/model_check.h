// Structural validation of a parsed ModelProto, before any of it is imported.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace kiln::frontend::onnx {

// The newest default-domain opset of the ONNX library kiln is built with; newer models are refused.
int64_t newestKnownOpset();

// True for the names of the default ONNX operator domain ("" and "ai.onnx").
bool isDefaultDomain(const std::string& domain);

// ONNX's training domain, whose optimizer ops (Adagrad, Momentum, Adam) kiln imports too.
inline constexpr const char* kTrainingDomain = "ai.onnx.preview.training";
// The domain kiln imports op OP_TYPE from: kTrainingDomain for its optimizers, else "".
std::string domainOfOp(const std::string& opType);

// Protobuf parsing accepts many truncated or corrupt files, so this checks what the importer relies
// on: a graph, an opset import (the default domain's, or only the training domain's), SSA values
// each defined once and before use, and defined graph outputs. Throws kiln::Error "'SOURCE' is not
// a valid ONNX model: ...".
void checkModel(const ::onnx::ModelProto& model, const std::string& source);

// The opset version of the default domain; the newest known when the model imports only the
// training domain.
int64_t defaultOpsetVersion(const ::onnx::ModelProto& model);

}  // namespace kiln::frontend::onnx
