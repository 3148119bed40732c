// The optimisation pipeline as one ordered list of named passes, each run from an opt level on.
// The builtin list is kiln's; a compile context holds its own copy, to which its backends add
// their passes (before and after partitioning), so one context's passes never run in another.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kiln/ir/pass.h"

namespace kiln::driver {

// What a pass may depend on besides the graph: the target's fp32 vector lanes (layout blocks and
// matmul panels are one register wide).
struct PassTarget {
  int64_t lanes = 16;
};

struct PipelineEntry {
  std::string name;  // kebab-case, unique within a pipeline
  int minOptLevel = 1;
  std::function<void(ir::Graph&, const PassTarget&)> run;
};

class Pipeline {
 public:
  // 0: none (every node becomes its own kernel); 1: fold-constants, simplify; 2: + fold-batch-norm,
  // fuse-layer-norm, convert-layout and pack-matmul; 3: + fuse-ops, concat-in-place.
  static Pipeline builtin();

  // Adds ENTRY just before (or after) the entry named ANCHOR. Throws kiln::Error when ANCHOR is
  // not in the pipeline or ENTRY's name already is.
  void insertBefore(const std::string& anchor, PipelineEntry entry);
  void insertAfter(const std::string& anchor, PipelineEntry entry);

  // The passes run at OPT_LEVEL for TARGET, in order. Throws kiln::Error for a level outside 0..3.
  std::vector<ir::Pass> passes(int optLevel, const PassTarget& target) const;
  std::vector<std::string> names() const;  // every entry, in order

 private:
  std::vector<PipelineEntry> entries_;

  size_t indexOf(const std::string& anchor) const;
  void insertAt(size_t position, PipelineEntry entry);
};

}  // namespace kiln::driver
