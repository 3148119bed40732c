// A runtime loads artifacts it did not write, so the ELF checks run before the dynamic loader
// (bounds and checksum), the container and the params inside it must reject any malformed bytes
// with a kiln::Error.
#include <cstddef>
#include <cstdint>

#include "kiln/runtime/artifact.h"
#include "kiln/runtime/artifact_file.h"
#include "kiln/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    kiln::runtime::verifyArtifactBytes(data, size, "fuzz", /*checksum=*/true);
  } catch (const kiln::Error&) {
  }
  try {
    kiln::runtime::Artifact artifact = kiln::runtime::parseArtifact(data, size, "fuzz");
    for (const kiln::runtime::ArtifactModel& model : artifact.models) {
      try {
        kiln::runtime::readParams(model.params.data(), model.params.size(), {});
      } catch (const kiln::Error&) {
      }
    }
  } catch (const kiln::Error&) {
  }
  return 0;
}
