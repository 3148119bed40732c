// `kiln run --inputs x.npz` reads ZIP archives given by the user; any bytes must give arrays or a
// kiln::Error, without following hostile offsets or sizes.
#include <cstddef>
#include <cstdint>

#include "kiln/support/error.h"
#include "npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    kiln::cli::parseNpz(data, size, "fuzz.npz");
  } catch (const kiln::Error&) {
  }
  return 0;
}
