// What the debug executor's per-kernel runs add up to: a per-node table (median time, share,
// output shape, GFLOP/s) reconciled with the end-to-end time, and a Chrome trace; shared by
// `kiln run --profile` and the Python bindings' profile().
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kiln/runtime/module.h"
#include "kiln/support/json.h"

namespace kiln::runtime {

struct NodeTime {
  std::string name, ops, shape;  // ops "Conv+Add+Relu"; shape of the first output
  double us = 0;                 // median over the profiled runs
  double percent = 0;            // of the sum over nodes
  double gflops = 0;             // 0 when the kernel's flops are unknown
};

// How far the nodes' sum may lie from the end-to-end time: 10 % of it or 50 us, whichever is
// larger (the timers, the executor's calls between kernels, and noise between the runs). A
// profile beyond it misattributes time, and says so.
inline constexpr double kProfileGapFraction = 0.10;
inline constexpr double kProfileGapUs = 50;

struct ProfileSummary {
  std::vector<NodeTime> nodes;
  double nodesUs = 0;     // the sum of the nodes' medians
  double endToEndUs = 0;  // median of whole run() calls, measured on the same executor
  Json lastRun;           // the last profile() result, for chromeTrace

  double gapUs() const { return endToEndUs - nodesUs; }
  double gapBoundUs() const { return std::max(kProfileGapUs, kProfileGapFraction * endToEndUs); }
  // Whether the nodes account for the end-to-end time within the bound.
  bool reconciled() const { return std::abs(gapUs()) <= gapBoundUs(); }
};

// RUNS are profile() results (one JSON row per kernel, in run order) of the same executor.
ProfileSummary summarizeProfile(const std::vector<Json>& runs, double endToEndUs);

// REPEAT profiled runs of DEBUG_EXECUTOR (a debug_create result, local or remote), each followed
// by one whole run timed by WHOLE_RUN_MS (where the model runs), so the machine's noise hits both
// alike; the summary of both. Throws kiln::Error unless REPEAT >= 1.
ProfileSummary profileExecutor(const Module& debugExecutor, int64_t repeat,
                               const std::function<double()>& wholeRunMs);

// The Chrome trace event format (chrome://tracing, Perfetto) of one profile() run.
Json chromeTrace(const Json& run, const std::string& model);

}  // namespace kiln::runtime
