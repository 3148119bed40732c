// The C header of a static library (`kiln compile --executor aot --emit static`).
#pragma once

#include <string>
#include <vector>

#include "kiln/runtime/artifact.h"

namespace kiln::driver {

// Declares, per model (its signature and AOT metadata in MODELS), the entry function, the weight
// table, the workspace size and the inputs' and outputs' layouts, as macros a C program can use.
// PRODUCER and TARGET are said in the opening comment.
std::string staticLibraryHeader(const std::vector<runtime::ArtifactModel>& models,
                                const std::string& target, const std::string& guard);

// Where --emit static writes the header for OUTPUT_PATH: libm.a -> libm.h, else OUTPUT_PATH.h.
std::string staticHeaderPath(const std::string& outputPath);

}  // namespace kiln::driver
