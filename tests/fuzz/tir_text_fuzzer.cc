// The loop IR text form is hand-written in tests and golden files; the parser must reject any text
// with a kiln::Error, and the verifier must report (not crash on) whatever the parser accepts.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/support/error.h"
#include "kiln/tir/parser.h"
#include "kiln/tir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    std::vector<kiln::tir::PrimFunc> funcs =
        kiln::tir::parsePrimFuncs(std::string(reinterpret_cast<const char*>(data), size));
    for (const kiln::tir::PrimFunc& f : funcs) kiln::tir::verify(f);
  } catch (const kiln::Error&) {
  }
  return 0;
}
