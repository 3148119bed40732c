// Schedule knobs: the named, tunable choices of how a kernel's loops are arranged.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "kiln/kernel/target_model.h"

namespace kiln::kernel {

// Local buffers (loop IR `allocate`) live on the stack of the thread running the kernel, because
// nothing may be allocated on the heap inside run(). Every lowering tiles its local buffers so
// that each holds at most kMaxLocalBufferBytes, and all local buffers of one kernel together at
// most kMaxLocalBytesPerKernel (codegen places them all in the entry block, so they are live at
// once; pool threads have 8 MiB stacks, this keeps a wide margin). lowerGroup checks both.
inline constexpr int64_t kMaxLocalBufferBytes = 128 * 1024;
inline constexpr int64_t kMaxLocalBytesPerKernel = 192 * 1024;

struct ScheduleConfig {
  TargetModel target;    // registers, vector width and caches behind the default schedules
  bool parallel = true;  // mark outer loops parallel (the runtime's pool runs them)
  // Per-kernel knob overrides, "kernel_name/knob" -> value (from tuning records).
  std::map<std::string, int64_t> knobs;
};

}  // namespace kiln::kernel
