// The artifact container (metadata and weights) travels inside the shared library as data.
#pragma once

#include <string>

namespace llvm {
class Module;
}

namespace kiln::codegen {

// Defines the constants __kiln_artifact (the bytes of ARTIFACT, 64-byte aligned) and
// __kiln_artifact_size (i64) in MODULE.
void embedArtifact(llvm::Module& module, const std::string& artifact);

}  // namespace kiln::codegen
