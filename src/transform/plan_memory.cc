// The static memory plan: one pass over the groups in execution order assigns every computed
// tensor a storage, reusing storages whose tensors are dead, so nothing is allocated in run(); a
// tensor sized in bounded symbols gets the place of its size at the bounds.
#include "kiln/transform/plan_memory.h"

#include <algorithm>
#include <map>
#include <set>

#include "kiln/support/error.h"

namespace kiln::transform {
namespace {

constexpr int64_t kAlignment = 64;
// 2^62 bytes: more than any machine addresses, and far enough from int64's end that sums and
// alignment of such sizes cannot wrap.
constexpr int64_t kMaxPlanBytes = int64_t{1} << 62;

// A tensor sized in the graph's symbols (BOUNDS) is placed at its largest size.
int64_t alignedBytes(const ir::Value* v, const opdef::DimBounds& bounds) {
  std::optional<runtime::Shape> shape = v->type.capacity(bounds);
  KILN_CHECK(shape.has_value(), "value '", v->name, "' has no place in memory");
  int64_t bytes = runtime::shapeBytes(*shape, v->type.dtype);
  if (bytes > kMaxPlanBytes) {
    throw Error(strCat("value '", v->name, "' is ", v->type.str(), ": ", bytes,
                       " bytes, more than ", kMaxPlanBytes, " any machine can hold"));
  }
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
    findAliases();
    findCaches();
    for (const ir::Value* in : graph_.inputs()) {
      // An input sized at run time (a body's) is allocated then; a cache's past lives in its
      // present's storage.
      if (placed(in) && !plan_.caches.count(in)) ownStorage(in);
    }
    std::vector<Interval> intervals = lifetimes();
    for (const Interval& iv : intervals) {
      if (plan_.slots.count(iv.value)) continue;  // a graph input listed as output
      if (!placed(iv.value)) continue;            // sized at run time: the executor allocates it
      if (graph_.isGraphOutput(iv.value)) {
        ownStorage(iv.value);
      } else {
        shared(iv);
      }
      placeAliases(iv.value);
      placePast(iv.value);
    }
    checkTotal();
    return std::move(plan_);
  }

 private:
  // Every size here is a byte count the runtime adds up and allocates: refused at compile time
  // when no machine could hold it, so nothing downstream wraps around.
  void checkTotal() const {
    int64_t total = 0;
    for (int64_t size : plan_.storageSizes) {
      if (__builtin_add_overflow(total, size, &total) || total > kMaxPlanBytes) {
        throw Error(strCat("the model's tensors need more than ", kMaxPlanBytes,
                           " bytes of memory; check --input-shapes"));
      }
    }
  }

  bool placed(const ir::Value* v) const { return v->type.capacity(graph_.dimBounds).has_value(); }

  void ownStorage(const ir::Value* v) {
    if (plan_.slots.count(v)) return;
    plan_.slots[v] = {static_cast<int>(plan_.storageSizes.size()), 0};
    plan_.storageSizes.push_back(alignedBytes(v, graph_.dimBounds));
  }

  // The inputs of in-place Concats (concat-in-place) and where they lie in the output.
  void findAliases() {
    for (const ir::Node* n : graph_.nodes()) {
      if (n->op != "Concat" || n->attrs.getInt("kiln.in_place", 0) == 0) continue;
      int64_t offset = 0;
      for (const ir::Value* in : n->inputs) {
        aliases_[in] = {n->outputs[0], offset};
        offset += in->type.nbytes();
      }
    }
  }

  // The tensor whose storage V lives in: V itself, or the in-place Concat output holding it.
  const ir::Value* owner(const ir::Value* v) const {
    auto it = aliases_.find(v);
    return it == aliases_.end() ? v : it->second.first;
  }

  // The past and present of every cache appended in place, and the past of each present.
  void findCaches() {
    for (const ir::Node* n : graph_.nodes()) {
      if (n->op != "kiln.CacheAppend") continue;
      CacheLayout layout{n->attrs.getInt("axis"), n->attrs.getInt("rows")};
      plan_.caches[n->inputs[0]] = layout;
      plan_.caches[n->outputs[0]] = layout;
      pasts_[n->outputs[0]] = n->inputs[0];
    }
  }

  void placePast(const ir::Value* present) {
    auto it = pasts_.find(present);
    if (it != pasts_.end()) plan_.slots[it->second] = plan_.slots.at(present);
  }

  void placeAliases(const ir::Value* out) {
    for (const auto& [in, where] : aliases_) {
      if (where.first != out) continue;
      StorageSlot s = plan_.slots.at(out);
      plan_.slots[in] = {s.storage, s.offset + where.second};
    }
  }

  // Intervals of every group output that owns its storage, by start: an in-place Concat's output
  // is live from the first of its inputs to the last use of any of them or of itself.
  std::vector<Interval> lifetimes() const {
    std::map<const ir::Value*, int> start, end;
    std::vector<const ir::Value*> order;
    for (int g = 0; g < static_cast<int>(groups_.size()); ++g) {
      for (const ir::Value* out : groups_[g].outputs) {
        KILN_CHECK(!out->isConstant(), "group ", groups_[g].name, " outputs constant ", out->name);
        const ir::Value* o = owner(out);
        if (!start.count(o)) {
          start[o] = g;
          order.push_back(o);
        }
        end[o] = std::max(end[o], g);
      }
      for (const ir::Value* in : groups_[g].inputs) {
        const ir::Value* o = owner(in);
        if (start.count(o)) end[o] = std::max(end[o], g);
      }
    }
    std::vector<Interval> intervals;
    intervals.reserve(order.size());
    for (const ir::Value* v : order) intervals.push_back({v, start[v], end[v]});
    return intervals;  // ORDER is by first production, so by start
  }

  // Best fit among the storages free at iv.start: the smallest that is big enough, else the
  // largest, grown (cheaper than a new storage); a new storage when none is free.
  void shared(const Interval& iv) {
    int64_t need = alignedBytes(iv.value, graph_.dimBounds);
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
  std::map<const ir::Value*, std::pair<const ir::Value*, int64_t>> aliases_;
  std::map<const ir::Value*, const ir::Value*> pasts_;  // present -> past of each cache
};

}  // namespace

MemoryPlan planMemory(const ir::Graph& graph, const std::vector<ir::FusedGroup>& groups) {
  return Planner(graph, groups).run();
}

}  // namespace kiln::transform
