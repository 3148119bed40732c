// The artifact container: the versioned, self-describing bytes a compiled library carries
// (magic, format version, producer version, target, models with executor metadata and weights).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/runtime/ndarray.h"
#include "kiln/support/json.h"

namespace kiln::runtime {

// Bumped whenever the container layout or the executor metadata schema changes.
inline constexpr uint32_t kArtifactFormatVersion = 2;
// "kiln 0.1.0": the version of the kiln that wrote (or reads) an artifact.
std::string producerVersion();

struct ArtifactModel {
  std::string name;      // "default"
  std::string executor;  // "graph", "aot": the runtime factory that reads `metadata`
  // What every executor kind shares, so tools read it without knowing the executor's schema:
  // {"inputs": [{"name", "shape", "dtype"}], "outputs": [...], "workspace_bytes": N,
  //  "num_params": N}
  Json signature;
  Json metadata;  // executor metadata, schema per executor (graph_executor.h, aot_executor.h)
  // Weights in the saveParams() format. Embedded: `params` views them inside the container (64-byte
  // aligned when the container is). External: they ship as a separate file and `params` is empty;
  // size and checksum still say which file belongs to the model.
  bool externalParams = false;
  uint64_t paramsSize = 0;
  uint64_t paramsChecksum = 0;  // paramsChecksum() of the weights' bytes
  std::string_view params;
};

struct Artifact {
  uint32_t formatVersion = kArtifactFormatVersion;
  std::string producer = producerVersion();
  Json target;  // {"triple":..., "cpu":..., "features":...}
  std::vector<ArtifactModel> models;
};

// Each embedded params blob starts at a multiple of 64 bytes from the container's start.
std::string serializeArtifact(const Artifact& artifact);
// Checks magic and format version; throws kiln::Error naming ORIGIN, both versions and the
// producer on a mismatch, and the offset on truncated or malformed bytes. The models' `params`
// view DATA, which must outlive them.
Artifact parseArtifact(const void* data, size_t size, const std::string& origin);

class SharedLibrary;
// The container a loaded library carries (__kiln_artifact, __kiln_artifact_size), checked against
// the symbol's real size before it is parsed. Throws kiln::Error when the library is not a kiln
// artifact or its container is malformed or of another format version.
Artifact readArtifact(const SharedLibrary& library);

// An artifact read from its file without loading it (any architecture): the file stays mapped
// while the value lives, since the models' params view it.
struct ArtifactFile {
  std::shared_ptr<const void> mapping;
  Artifact artifact;
};
// Finds the container in the ELF section "kiln_artifact". Throws kiln::Error naming PATH when the
// file is not a kiln artifact or the container is malformed or of another format version.
ArtifactFile readArtifactFile(const std::string& path);

// Named tensors in a stable order; the format of get_params/load_params and of the weights
// section of an artifact.
using ParamList = std::vector<std::pair<std::string, NDArray>>;
std::string saveParams(const ParamList& params);
// The same bytes handed to SINK in pieces, each tensor's straight from its array, so weights of
// any size are written (or only hashed, with a sink that drops them) without a second copy.
// Returns the blob's size and its checksum.
struct ParamsSummary {
  uint64_t size = 0;
  uint64_t checksum = 0;
};
ParamsSummary writeParams(const ParamList& params,
                          const std::function<void(const void* data, size_t size)>& sink);
// Throws kiln::Error on malformed, truncated or corrupt (checksum) bytes. Copies every tensor.
ParamList loadParams(const std::string& bytes);

// Where params bytes come from, for readParams.
struct ParamSource {
  std::string origin;  // names the bytes in errors: "weights file 'm.so.params'"
  // Keeps the bytes alive; when set, tensors whose bytes are 64-byte aligned are handed out as
  // read-only views of them instead of copies.
  std::shared_ptr<const void> owner;
  bool verifyChecksum = true;
};
ParamList readParams(const void* data, size_t size, const ParamSource& source);
// The checksum a params blob records for itself (its last 8 bytes), or 0 when too short: it
// identifies the weights an artifact was compiled with.
uint64_t paramsChecksum(const void* data, size_t size);

}  // namespace kiln::runtime
