// Schedule knobs: the named, tunable choices of how a kernel's loops are arranged.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace kiln::kernel {

struct ScheduleConfig {
  int vectorLanes = 16;  // fp32 lanes of the target's widest vector (16 for AVX-512, 8 for AVX2)
  bool parallel = true;  // mark outer loops parallel (the runtime's pool runs them)
  // Per-kernel knob overrides, "kernel_name/knob" -> value (from tuning records).
  std::map<std::string, int64_t> knobs;
};

}  // namespace kiln::kernel
