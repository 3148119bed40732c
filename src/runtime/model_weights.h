// Reading a model's weights for any executor kind: in place from a loaded library or a mapped
// params file, and checked against the parameters the model declares.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime/artifact.h"
#include "kiln/runtime/shared_library.h"

namespace kiln::runtime {

// A parameter a model expects: its name, shape and dtype.
struct ParamSpec {
  std::string name;
  Shape shape;
  DataType dtype;
};

// The weights embedded in MODEL (views into LIBRARY's mapping, which they keep loaded); empty when
// the model's weights ship separately.
ParamList embeddedWeights(const std::shared_ptr<SharedLibrary>& library,
                          const ArtifactModel& model);

// The weights in the params file PATH, mapped and handed out in place. Checks the file's own
// checksum, and that it is the file MODEL was compiled with (EXPECTED_CHECKSUM, when not 0).
ParamList weightsFile(const std::string& path, const std::string& model, uint64_t expectedChecksum);

// One array per SPECS entry (undefined where LIST has none); throws kiln::Error naming MODEL and
// FUNCTION when LIST holds a tensor SPECS does not declare, or one of another shape or dtype.
std::vector<NDArray> bindParams(const std::vector<ParamSpec>& specs, const ParamList& list,
                                const std::string& model, const char* function);

}  // namespace kiln::runtime
