// Measures the local (stack) buffers of a lowered kernel, independently of lowerGroup's own check,
// so tests can assert that no kernel needs the heap at run time.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/tir/prim_func.h"

namespace kiln::kernel::testing {

struct LocalBufferUsage {
  int64_t largestBytes = 0;  // the biggest single allocate
  int64_t totalBytes = 0;    // all allocates of the kernel together
  std::string largestName;
};

LocalBufferUsage localBufferUsage(const tir::PrimFunc& f);

// Empty when F's local buffers are within kMaxLocalBufferBytes / kMaxLocalBytesPerKernel, else a
// description of the violation.
std::string localBufferViolation(const tir::PrimFunc& f);

}  // namespace kiln::kernel::testing
