// Summary statistics of repeated timings: what `kiln run --print-time` prints and the Python
// bindings' benchmark() returns, computed one way for both.
#pragma once

#include <string>
#include <vector>

#include "kiln/support/json.h"

namespace kiln::runtime {

struct TimingStats {
  double mean = 0, median = 0, min = 0, max = 0, std = 0, p90 = 0, p99 = 0;
  size_t runs = 0;
};

// Percentiles by linear interpolation between closest ranks (NumPy's default); std is the
// population standard deviation. Throws kiln::Error on an empty sample.
TimingStats summarize(std::vector<double> millis);
std::string formatTable(const TimingStats& s);
// {"mean_ms", "median_ms", "min_ms", "max_ms", "std_ms", "p90_ms", "p99_ms", "runs"}.
Json timingJson(const TimingStats& s);

}  // namespace kiln::runtime
