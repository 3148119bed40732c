// The "aot" executor's generator (the schema it writes is in runtime/aot_executor.h).
#pragma once

#include "kiln/driver/executor_codegen.h"

namespace kiln::driver {

// One entry function that calls the model's kernels in order over a workspace whose offsets are
// fixed here, and the metadata the runtime's AOT factory reads.
ExecutorCode generateAotExecutor(const LoweredModel& model);

// The entry function's symbol for MODEL: kiln_<model>_run (kernels are kiln_<model>__<group>, so
// the two never clash).
std::string aotEntrySymbol(const std::string& model);

}  // namespace kiln::driver
