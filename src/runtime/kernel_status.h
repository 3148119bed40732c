// What a kernel's status code means, in words, for every executor's error messages.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::runtime {

// "an index input holds a value outside the axis it indexes (status 2)", or a generic text for
// codes this runtime does not know.
std::string kernelStatusText(int32_t status);

}  // namespace kiln::runtime
