// Summary statistics of repeated timings, as `kiln run --print-time` reports them.
#pragma once

#include <string>
#include <vector>

namespace kiln::cli {

struct TimingStats {
  double mean = 0, median = 0, min = 0, max = 0, std = 0, p90 = 0, p99 = 0;
  size_t runs = 0;
};

// Percentiles by linear interpolation between closest ranks (NumPy's default). Throws kiln::Error
// on an empty sample.
TimingStats summarize(std::vector<double> millis);
std::string formatTable(const TimingStats& s);
std::string formatJson(const TimingStats& s);  // one line, keys mean_ms ... p99_ms, runs

}  // namespace kiln::cli
