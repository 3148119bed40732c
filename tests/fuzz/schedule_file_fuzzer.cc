// `kiln compile --schedule FILE` reads schedule and tuning-record files users edit or copy
// between machines; any text must give knob overrides or a kiln::Error naming the line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kiln/kernel/schedule.h"
#include "kiln/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    kiln::kernel::parseScheduleFile(std::string(reinterpret_cast<const char*>(data), size),
                                    "fuzz.json");
  } catch (const kiln::Error&) {
  }
  return 0;
}
