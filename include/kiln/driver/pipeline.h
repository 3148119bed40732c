// The optimisation pipeline as one ordered list of named passes, each run from an opt level on.
// The builtin list is kiln's; a compile context holds its own copy, to which its backends add
// their passes (before and after partitioning), so one context's passes never run in another.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kiln/driver/compile_phase.h"
#include "kiln/ir/pass.h"
#include "kiln/transform/partition.h"

namespace kiln::driver {

struct PassTarget;

struct PipelineEntry {
  std::string name;  // kebab-case, unique within a pipeline
  int minOptLevel = 1;
  std::function<void(ir::Graph&, const PassTarget&)> run;
};

// One backend named in --target, as the partition entry runs it: its passes before, its
// partitioning, its passes after.
struct OffloadStep {
  transform::PartitionBackend backend;
  std::vector<PipelineEntry> before, after;
};

// What a pass may depend on besides the graph: the target's fp32 vector lanes (layout blocks and
// matmul panels are one register wide), and the backends to partition for, in order.
struct PassTarget {
  int64_t lanes = 16;
  std::vector<OffloadStep> offloads;
  std::function<void(const transform::OffloadRecord&)> onOffload;  // told of every offload
};

class Pipeline {
 public:
  // 0: partition only (every other node becomes its own kernel); 1: fold-constants, simplify,
  // decompose-conv; 2: + fold-batch-norm, fuse-layer-norm, convert-layout and pack-matmul; 3: +
  // fuse-ops, concat-in-place. "partition" (for the backends of PassTarget::offloads) runs at every
  // level, after fuse-layer-norm.
  static Pipeline builtin();

  // Adds ENTRY just before (or after) the entry named ANCHOR. Throws kiln::Error when ANCHOR is
  // not in the pipeline or ENTRY's name already is.
  void insertBefore(const std::string& anchor, PipelineEntry entry);
  void insertAfter(const std::string& anchor, PipelineEntry entry);

  // The passes run at OPT_LEVEL for TARGET, in order, up to those of phase LAST: the entries
  // before "partition" are the graph-passes phase, "partition" its own, the entries after it the
  // fuse phase. Throws kiln::Error for a level outside 0..3.
  std::vector<ir::Pass> passes(int optLevel, const PassTarget& target,
                               CompilePhase last = CompilePhase::kFuse) const;
  std::vector<std::string> names() const;  // every entry, in order
  // The entry named NAME; throws kiln::Error listing the entries when there is none.
  const PipelineEntry& entry(const std::string& name) const;

 private:
  std::vector<PipelineEntry> entries_;

  size_t indexOf(const std::string& anchor) const;
  CompilePhase phaseOf(size_t index) const;
  void insertAt(size_t position, PipelineEntry entry);
};

}  // namespace kiln::driver
