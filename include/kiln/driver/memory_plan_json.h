// The static memory plan as JSON: what --dump-ir writes as memory_plan.json and --compile-to plan
// writes as its output.
#pragma once

#include "kiln/support/json.h"
#include "kiln/transform/plan_memory.h"

namespace kiln::driver {

// {"total_bytes", "storages": [bytes...], "values": [{"name", "type", "storage", "offset"}...]},
// the values ordered by storage, then offset, then name.
Json memoryPlanJson(const transform::MemoryPlan& plan);

}  // namespace kiln::driver
