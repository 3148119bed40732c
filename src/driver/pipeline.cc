// The ordered pass list: the one place that says which graph passes run at which opt level.
#include "kiln/driver/pipeline.h"

#include <algorithm>

#include "kiln/support/error.h"
#include "kiln/transform/passes.h"

namespace kiln::driver {
namespace {

PipelineEntry plain(const std::string& name, int minOptLevel) {
  return {name, minOptLevel,
          [name](ir::Graph& g, const PassTarget& t) { transform::findPass(name, t.lanes).run(g); }};
}

void partition(ir::Graph& g, const PassTarget& t) {
  for (const OffloadStep& step : t.offloads) {
    for (const PipelineEntry& e : step.before) e.run(g, t);
    for (const transform::OffloadRecord& r : transform::partitionGraph(g, step.backend)) {
      if (t.onOffload) t.onOffload(r);
    }
    for (const PipelineEntry& e : step.after) e.run(g, t);
  }
}

}  // namespace

Pipeline Pipeline::builtin() {
  Pipeline p;
  for (const char* name : {"fold-constants", "simplify"}) p.entries_.push_back(plain(name, 1));
  for (const char* name : {"fold-batch-norm", "fuse-layer-norm", "fuse-attention"})
    p.entries_.push_back(plain(name, 2));
  p.entries_.push_back(plain("decompose-conv", 1));
  p.entries_.push_back({"partition", 0, partition});
  for (const char* name : {"convert-layout", "pack-matmul", "cache-in-place"})
    p.entries_.push_back(plain(name, 2));
  for (const char* name : {"fuse-ops", "concat-in-place"}) p.entries_.push_back(plain(name, 3));
  return p;
}

size_t Pipeline::indexOf(const std::string& anchor) const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].name == anchor) return i;
  }
  std::string known;
  for (const std::string& name : names()) known += (known.empty() ? "" : ", ") + name;
  throw Error(strCat("pass '", anchor, "' is not in the pipeline; its passes are ", known));
}

const PipelineEntry& Pipeline::entry(const std::string& name) const {
  return entries_[indexOf(name)];
}

void Pipeline::insertAt(size_t position, PipelineEntry entry) {
  std::vector<std::string> known = names();
  if (std::find(known.begin(), known.end(), entry.name) != known.end()) {
    throw Error(strCat("pass '", entry.name, "' is already in the pipeline"));
  }
  KILN_CHECK(entry.run, "pass '", entry.name, "' has nothing to run");
  entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(position), std::move(entry));
}

void Pipeline::insertBefore(const std::string& anchor, PipelineEntry entry) {
  insertAt(indexOf(anchor), std::move(entry));
}

void Pipeline::insertAfter(const std::string& anchor, PipelineEntry entry) {
  insertAt(indexOf(anchor) + 1, std::move(entry));
}

CompilePhase Pipeline::phaseOf(size_t index) const {
  size_t partition = indexOf("partition");
  if (index < partition) return CompilePhase::kGraphPasses;
  return index == partition ? CompilePhase::kPartition : CompilePhase::kFuse;
}

std::vector<ir::Pass> Pipeline::passes(int optLevel, const PassTarget& target,
                                       CompilePhase last) const {
  if (optLevel < 0 || optLevel > 3) {
    throw Error(strCat("--opt-level ", optLevel, " is out of range; expected 0, 1, 2 or 3"));
  }
  std::vector<ir::Pass> out;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const PipelineEntry& e = entries_[i];
    if (optLevel < e.minOptLevel || phaseOf(i) > last) continue;
    out.push_back({e.name, [run = e.run, target](ir::Graph& g) { run(g, target); }});
  }
  return out;
}

std::vector<std::string> Pipeline::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const PipelineEntry& e : entries_) out.push_back(e.name);
  return out;
}

}  // namespace kiln::driver
