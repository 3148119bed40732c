// Object files into a static library.
#pragma once

#include <string>
#include <vector>

namespace kiln::codegen {

// Archives OBJECTS into OUTPUT_PATH (written beside it and renamed into place) with llvm-ar-19,
// else the system's ar; LOG_PATH receives the tool's output. Throws kiln::Error when neither is
// installed or archiving fails.
void archiveObjects(const std::vector<std::string>& objects, const std::string& outputPath,
                    const std::string& logPath);

}  // namespace kiln::codegen
