// The artifact container (metadata and weights) travels inside the shared library as data.
#pragma once

#include <string>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace kiln::codegen {

// Defines the constants __kiln_artifact (the bytes of ARTIFACT, 64-byte aligned) and
// __kiln_artifact_size (i64) in MODULE.
void embedArtifact(llvm::Module& module, const std::string& artifact);

// Writes an object file for TM holding only the artifact constants, at PATH. Throws kiln::Error
// when PATH cannot be written or LLVM reports an error.
void emitArtifactObject(const std::string& artifact, llvm::TargetMachine& tm,
                        const std::string& path);

}  // namespace kiln::codegen
