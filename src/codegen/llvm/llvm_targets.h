// LLVM's target registry must be filled once per process before any triple can be looked up.
#pragma once

#include <string>

namespace llvm {
class Target;
}

namespace kiln::codegen {

// Registers every target LLVM was built with (idempotent, thread-safe).
void initializeLlvmTargets();

// The registered target for TRIPLE; throws kiln::Error naming the triple and the built targets,
// or saying why the triple cannot make an artifact (not ELF, big-endian).
const llvm::Target& lookupLlvmTarget(const std::string& triple);

// True when code for TRIPLE runs on this machine (same architecture, OS and environment; the vendor
// part is ignored so "x86_64-linux-gnu" matches "x86_64-pc-linux-gnu").
bool isHostTriple(const std::string& triple);

}  // namespace kiln::codegen
