// What `kiln run --profile`, `--trace` and `--dump-outputs` make of the debug executor's
// per-kernel runs.
#pragma once

#include <string>
#include <vector>

#include "kiln/support/json.h"

namespace kiln::cli {

struct NodeTime {
  std::string name, ops, shape;  // ops "Conv+Add+Relu"; shape of the first output
  double us = 0;                 // median over the profiled runs
  double percent = 0;            // of the sum over nodes
  double gflops = 0;             // 0 when the kernel's flops are unknown
};

struct ProfileSummary {
  std::vector<NodeTime> nodes;
  double nodesUs = 0;     // the sum of the nodes' medians
  double endToEndUs = 0;  // median of whole run() calls, measured on the same executor
};

// RUNS are profile() results (one JSON row per kernel, in run order) of the same executor.
ProfileSummary summarizeProfile(const std::vector<Json>& runs, double endToEndUs);
// The per-node table, with a total line that reconciles the sum with the end-to-end time.
std::string formatProfile(const ProfileSummary& s);
// The Chrome trace event format (chrome://tracing, Perfetto) of one profile() run.
Json chromeTrace(const Json& run, const std::string& model);
// The file name `--dump-outputs` gives output J of kernel K named NAME: "007_conv1_0.npy"; with
// ITEM >= 0, tensor ITEM of that output, a sequence or optional: "007_split_0_2.npy".
std::string dumpFileName(size_t k, const std::string& name, size_t j, int64_t item = -1);

}  // namespace kiln::cli
