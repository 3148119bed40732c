// Schedule knobs: the named, tunable choices of how a kernel's loops are arranged, keyed by the
// workload they tune (not by kernel symbol), so a choice made for one layer applies to every
// identical layer of any model.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/ir/fused_group.h"
#include "kiln/kernel/target_model.h"

namespace kiln::kernel {

class LoweringTable;

// Local buffers (loop IR `allocate`) live on the stack of the thread running the kernel, because
// nothing may be allocated on the heap inside run(). Every lowering tiles its local buffers so
// that each holds at most kMaxLocalBufferBytes, and all local buffers of one kernel together at
// most kMaxLocalBytesPerKernel (codegen places them all in the entry block, so they are live at
// once; pool threads have 8 MiB stacks, this keeps a wide margin). lowerGroup checks both.
inline constexpr int64_t kMaxLocalBufferBytes = int64_t{128} * 1024;
inline constexpr int64_t kMaxLocalBytesPerKernel = int64_t{192} * 1024;

// Knob overrides: workload key -> knob name -> value. The workload "*" applies to every kernel.
using KnobOverrides = std::map<std::string, std::map<std::string, int64_t>>;

struct ScheduleConfig {
  TargetModel target;    // registers, vector width and caches behind the default schedules
  bool parallel = true;  // mark outer loops parallel (the runtime's pool runs them)
  KnobOverrides knobs;   // from a schedule file or a tuner; empty: the analytical defaults
  // The compile context's lowerings; null: LoweringTable::builtin().
  std::shared_ptr<const LoweringTable> lowerings;
};

// One knob as a lowering declared it: the value it took and the integer range it accepts.
struct KnobChoice {
  std::string name;
  int64_t value = 0;
  int64_t lo = 0, hi = 0;
};

// What a kernel's schedule was: its workload and every knob its lowering declared.
struct KernelSchedule {
  std::string workload;
  std::vector<KnobChoice> knobs;
};

// The workload of a fused group: its first node's op, input and output types and attributes,
// and the target's instruction set and vector width, e.g.
// "kiln.MatMulPacked(float32[128,256],float32[64,256,16])->float32[128,1024]{block=16,n=1024}@avx512x16".
// The epilogue does not take part: it does not change how the loops are best arranged.
std::string workloadKey(const ir::FusedGroup& group, const TargetModel& target);

// Reads a schedule file: JSON lines (or one JSON array) of {"workload": KEY, "knobs": {NAME:
// VALUE, ...}}, later lines winning. Throws kiln::Error naming the line and what is wrong.
KnobOverrides parseScheduleFile(const std::string& text, const std::string& path);
// One JSON line per kernel schedule: {"workload", "knobs": {name: value}, "ranges": {name: [lo,
// hi]}}; the format parseScheduleFile reads.
std::string scheduleRecord(const KernelSchedule& schedule);

}  // namespace kiln::kernel
