// The artifact container: the versioned, self-describing bytes a compiled library carries
// (magic, format version, producer version, target, models with executor metadata and weights).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kiln/runtime/ndarray.h"
#include "kiln/support/json.h"

namespace kiln::runtime {

// Bumped whenever the container layout or the executor metadata schema changes.
inline constexpr uint32_t kArtifactFormatVersion = 1;
// "kiln 0.1.0": the version of the kiln that wrote (or reads) an artifact.
std::string producerVersion();

struct ArtifactModel {
  std::string name;      // "default"
  std::string executor;  // "graph"
  Json metadata;         // executor metadata (graph_executor.h documents the graph schema)
  std::string params;    // weights, in the saveParams() format
};

struct Artifact {
  uint32_t formatVersion = kArtifactFormatVersion;
  std::string producer = producerVersion();
  Json target;  // {"triple":..., "cpu":..., "features":...}
  std::vector<ArtifactModel> models;
};

std::string serializeArtifact(const Artifact& artifact);
// Checks magic and format version; throws kiln::Error naming ORIGIN, both versions and the
// producer on a mismatch, and the offset on truncated or malformed bytes.
Artifact parseArtifact(const void* data, size_t size, const std::string& origin);

class SharedLibrary;
// The container a loaded library carries (__kiln_artifact, __kiln_artifact_size), checked against
// the symbol's real size before it is parsed. Throws kiln::Error when the library is not a kiln
// artifact or its container is malformed or of another format version.
Artifact readArtifact(const SharedLibrary& library);

// Named tensors in a stable order; the format of get_params/load_params and of the weights
// section of an artifact.
using ParamList = std::vector<std::pair<std::string, NDArray>>;
std::string saveParams(const ParamList& params);
// Throws kiln::Error on malformed or truncated bytes.
ParamList loadParams(const std::string& bytes);

}  // namespace kiln::runtime
