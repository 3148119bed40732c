// The graph IR text form is hand-written in tests and golden files; the parser must reject any
// text with a kiln::Error and never hand back a graph the verifier refuses.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kiln/ir/parser.h"
#include "kiln/ir/verifier.h"
#include "kiln/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto graph = kiln::ir::parseGraph(std::string(reinterpret_cast<const char*>(data), size));
    kiln::ir::verifyGraph(*graph);  // InternalError here is a parser bug: left uncaught
  } catch (const kiln::Error&) {
  }
  return 0;
}
