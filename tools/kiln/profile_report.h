// What `kiln run --profile` and `--dump-outputs` print and write of the debug executor's
// per-kernel runs (the summary itself is kiln/runtime/profile_summary.h).
#pragma once

#include <cstdint>
#include <string>

#include "kiln/runtime/profile_summary.h"

namespace kiln::cli {

// The per-node table, with a total line that reconciles the sum with the end-to-end time.
std::string formatProfile(const runtime::ProfileSummary& s);
// The file name `--dump-outputs` gives output J of kernel K named NAME: "007_conv1_0.npy"; with
// ITEM >= 0, tensor ITEM of that output, a sequence or optional: "007_split_0_2.npy".
std::string dumpFileName(size_t k, const std::string& name, size_t j, int64_t item = -1);

}  // namespace kiln::cli
