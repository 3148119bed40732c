// Mean, spread and tail percentiles of per-run latencies.
#include "kiln/runtime/timing_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

double percentile(const std::vector<double>& sorted, double p) {
  double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(rank));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - static_cast<double>(lo));
}

}  // namespace

TimingStats summarize(std::vector<double> millis) {
  if (millis.empty()) throw Error("no timings to summarize: expected a repeat count >= 1");
  std::sort(millis.begin(), millis.end());
  TimingStats s;
  s.runs = millis.size();
  double sum = 0;
  for (double m : millis) sum += m;
  s.mean = sum / static_cast<double>(s.runs);
  double var = 0;
  for (double m : millis) var += (m - s.mean) * (m - s.mean);
  s.std = std::sqrt(var / static_cast<double>(s.runs));
  s.min = millis.front();
  s.max = millis.back();
  s.median = percentile(millis, 50);
  s.p90 = percentile(millis, 90);
  s.p99 = percentile(millis, 99);
  return s;
}

std::string formatTable(const TimingStats& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "Execution time summary (%zu runs):\n"
                " mean (ms)   median (ms)    max (ms)     min (ms)     std (ms)     p90 (ms)     "
                "p99 (ms)\n"
                "%10.4f   %10.4f   %10.4f   %10.4f   %10.4f   %10.4f   %10.4f\n",
                s.runs, s.mean, s.median, s.max, s.min, s.std, s.p90, s.p99);
  return buf;
}

Json timingJson(const TimingStats& s) {
  Json j;
  j["mean_ms"] = s.mean;
  j["median_ms"] = s.median;
  j["min_ms"] = s.min;
  j["max_ms"] = s.max;
  j["std_ms"] = s.std;
  j["p90_ms"] = s.p90;
  j["p99_ms"] = s.p99;
  j["runs"] = static_cast<int64_t>(s.runs);
  return j;
}

}  // namespace kiln::runtime
