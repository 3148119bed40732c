// The static memory plan: one pass over the groups in execution order assigns every computed
// tensor a storage, reusing storages whose tensors are dead, so nothing is allocated in run().
#include "kiln/transform/plan_memory.h"

#include <algorithm>
#include <set>

#include "kiln/support/error.h"

namespace kiln::transform {
namespace {

constexpr int64_t kAlignment = 64;

int64_t alignedBytes(const ir::Value* v) {
  int64_t bytes = v->type.numel() * static_cast<int64_t>(v->type.dtype.bytes());
  return std::max<int64_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
}

// A tensor computed by the groups: live from its producing group to its last consumer.
struct Interval {
  const ir::Value* value;
  int start;
  int end;
};

// A reusable storage: free for tensors that start after lastEnd.
struct Storage {
  int index;
  int lastEnd;
};

class Planner {
 public:
  Planner(const ir::Graph& graph, const std::vector<ir::FusedGroup>& groups)
      : graph_(graph), groups_(groups) {}

  MemoryPlan run() {
    for (const ir::Value* in : graph_.inputs()) ownStorage(in);
    std::vector<Interval> intervals = lifetimes();
    for (const Interval& iv : intervals) {
      if (plan_.slots.count(iv.value)) continue;  // a graph input listed as output
      if (graph_.isGraphOutput(iv.value)) {
        ownStorage(iv.value);
      } else {
        shared(iv);
      }
    }
    return std::move(plan_);
  }

 private:
  void ownStorage(const ir::Value* v) {
    if (plan_.slots.count(v)) return;
    plan_.slots[v] = {static_cast<int>(plan_.storageSizes.size()), 0};
    plan_.storageSizes.push_back(alignedBytes(v));
  }

  // Intervals of every group output, in order of their producing group.
  std::vector<Interval> lifetimes() const {
    std::map<const ir::Value*, int> producedAt;
    std::vector<Interval> intervals;
    for (int g = 0; g < static_cast<int>(groups_.size()); ++g) {
      for (const ir::Value* out : groups_[g].outputs) {
        KILN_CHECK(!out->isConstant(), "group ", groups_[g].name, " outputs constant ", out->name);
        producedAt[out] = static_cast<int>(intervals.size());
        intervals.push_back({out, g, g});
      }
      for (const ir::Value* in : groups_[g].inputs) {
        auto it = producedAt.find(in);
        if (it != producedAt.end()) intervals[it->second].end = g;
      }
    }
    return intervals;
  }

  // Best fit among the storages free at iv.start: the smallest that is big enough, else the
  // largest, grown (cheaper than a new storage); a new storage when none is free.
  void shared(const Interval& iv) {
    int64_t need = alignedBytes(iv.value);
    Storage* best = nullptr;
    auto better = [&](const Storage& s) {
      int64_t size = plan_.storageSizes[s.index];
      if (best == nullptr) return true;
      int64_t bestSize = plan_.storageSizes[best->index];
      if (size >= need) return bestSize < need || size < bestSize;
      return bestSize < need && size > bestSize;
    };
    for (Storage& s : pool_) {
      if (s.lastEnd < iv.start && better(s)) best = &s;
    }
    if (best == nullptr) {
      pool_.push_back({static_cast<int>(plan_.storageSizes.size()), iv.end});
      plan_.storageSizes.push_back(need);
      best = &pool_.back();
    } else {
      plan_.storageSizes[best->index] = std::max(plan_.storageSizes[best->index], need);
      best->lastEnd = iv.end;
    }
    plan_.slots[iv.value] = {best->index, 0};
  }

  const ir::Graph& graph_;
  const std::vector<ir::FusedGroup>& groups_;
  std::vector<Storage> pool_;
  MemoryPlan plan_;
};

}  // namespace

MemoryPlan planMemory(const ir::Graph& graph, const std::vector<ir::FusedGroup>& groups) {
  return Planner(graph, groups).run();
}

}  // namespace kiln::transform
