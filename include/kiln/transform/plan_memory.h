// The static memory plan: where every tensor a model computes lives, with buffer reuse.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "kiln/ir/fused_group.h"
#include "kiln/ir/graph.h"

namespace kiln::transform {

struct StorageSlot {
  int storage = -1;    // index into MemoryPlan::storageSizes
  int64_t offset = 0;  // bytes, 64-byte aligned
};

// A key/value cache written in place (kiln.CacheAppend): its matrices lie ROWS rows apart on
// AXIS, whatever length the run gives it.
struct CacheLayout {
  int64_t axis = 0;
  int64_t rows = 0;
};

struct MemoryPlan {
  std::vector<int64_t> storageSizes;  // bytes of each storage, allocated once per executor
  std::map<const ir::Value*, StorageSlot> slots;  // every graph input and group output
  // The past and present of each kiln.CacheAppend: one storage, laid out for the cache.
  std::map<const ir::Value*, CacheLayout> caches;
};

// Graph inputs and graph outputs each get a storage of their own (never reused: set_input writes
// them and get_output reads them between runs). Intermediate group outputs share storages when
// their lifetimes (first producing group .. last consuming group) do not overlap. The inputs of
// a Concat marked kiln.in_place lie inside its output's storage, at their offsets in it. The past
// input of a kiln.CacheAppend shares its output's storage.
// Constants are not planned: they are parameters.
MemoryPlan planMemory(const ir::Graph& graph, const std::vector<ir::FusedGroup>& groups);

}  // namespace kiln::transform
