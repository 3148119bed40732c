// Linking object files into the shared library that ships a model.
#pragma once

#include <string>
#include <vector>

namespace kiln::codegen {

// Links OBJECT_PATHS (code for TRIPLE) into the shared library OUTPUT_PATH, replacing it
// atomically. LOG_PATH receives the linker's output. Throws kiln::Error with the linker's messages
// on failure, or naming the package to install when no linker for TRIPLE is available.
void linkSharedLibrary(const std::vector<std::string>& objectPaths, const std::string& triple,
                       const std::string& outputPath, const std::string& logPath);

}  // namespace kiln::codegen
