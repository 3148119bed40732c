// The runtime's optional parts (run-time ops, the debug executor) are libraries of their own, so a
// board that runs static-shape models carries only the core. A process that linked one has it
// registered already; otherwise the core loads it from its own folder the first time a model
// needs it.
#pragma once

#include <string>

namespace kiln::runtime {

// Loads FILE (e.g. "libkiln_runtime_ops.so") from the folder libkiln_runtime.so was loaded from,
// once per process; the library registers itself as it loads. Returns "" when it loaded, else why
// not (the path tried and dlerror's text), the same text on every later call.
const std::string& loadCompanionLibrary(const std::string& file);

}  // namespace kiln::runtime
