// `kiln run` reads .npy arrays given by the user; any bytes must give an array or a kiln::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kiln/support/error.h"
#include "npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    kiln::cli::parseNpy(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy");
  } catch (const kiln::Error&) {
  }
  return 0;
}
