// Makes the memory plan readable: which storage and offset every planned tensor got.
#include "kiln/driver/memory_plan_json.h"

#include <algorithm>
#include <tuple>

namespace kiln::driver {

Json memoryPlanJson(const transform::MemoryPlan& plan) {
  struct Row {
    const ir::Value* value;
    transform::StorageSlot slot;
  };
  std::vector<Row> rows;
  for (const auto& [value, slot] : plan.slots) rows.push_back({value, slot});
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.slot.storage, a.slot.offset, a.value->name) <
           std::tie(b.slot.storage, b.slot.offset, b.value->name);
  });
  Json out;
  int64_t total = 0;
  Json::Array storages;
  for (int64_t bytes : plan.storageSizes) {
    storages.emplace_back(bytes);
    total += bytes;
  }
  out["total_bytes"] = total;
  out["storages"] = std::move(storages);
  Json::Array values;
  for (const Row& r : rows) {
    Json v;
    v["name"] = r.value->name;
    v["type"] = r.value->type.str();
    v["storage"] = r.slot.storage;
    v["offset"] = r.slot.offset;
    values.push_back(std::move(v));
  }
  out["values"] = std::move(values);
  return out;
}

}  // namespace kiln::driver
