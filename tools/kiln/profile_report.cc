// Turns per-node timings into a table a person reads (and checks against the end-to-end time).
#include "profile_report.h"

#include <algorithm>
#include <cstdio>

#include "kiln/ir/fused_group.h"
#include "kiln/support/error.h"

namespace kiln::cli {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string pad(const std::string& s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

}  // namespace

std::string formatProfile(const runtime::ProfileSummary& s) {
  size_t nameWidth = 4, opsWidth = 5;
  for (const runtime::NodeTime& n : s.nodes) {
    nameWidth = std::max(nameWidth, std::min<size_t>(n.name.size(), 40));
    opsWidth = std::max(opsWidth, std::min<size_t>(n.ops.size(), 40));
  }
  std::string out = pad("#", 5) + pad("node", nameWidth + 2) + pad("fused", opsWidth + 2) +
                    pad("time us", 11, true) + pad("%", 8, true) + "  " + pad("output", 20) +
                    pad("GFLOP/s", 9, true) + "\n";
  for (size_t k = 0; k < s.nodes.size(); ++k) {
    const runtime::NodeTime& n = s.nodes[k];
    out += pad(std::to_string(k), 5) + pad(n.name.substr(0, 40), nameWidth + 2) +
           pad(n.ops.substr(0, 40), opsWidth + 2) + pad(fixed(n.us, 1), 11, true) +
           pad(fixed(n.percent, 2), 8, true) + "  " + pad(n.shape, 20) +
           pad(n.gflops > 0 ? fixed(n.gflops, 1) : "-", 9, true) + "\n";
  }
  double gap = s.gapUs();
  out +=
      strCat("total (sum of ", s.nodes.size(), " nodes): ", fixed(s.nodesUs, 1), " us = 100.00%\n",
             "end-to-end run():          ", fixed(s.endToEndUs, 1), " us (", gap >= 0 ? "+" : "",
             fixed(gap, 1), " us, ", fixed(s.endToEndUs > 0 ? 100 * gap / s.endToEndUs : 0, 1),
             "% outside the kernels: timer and call overhead, and noise between the runs)\n");
  if (!s.reconciled()) {
    out += strCat("warning: the nodes and the end-to-end time differ by more than ",
                  fixed(s.gapBoundUs(), 1),
                  " us (10% or 50 us): the machine was busy, or the profile misses time; rerun "
                  "with more --repeat\n");
  }
  return out;
}

std::string dumpFileName(size_t k, const std::string& name, size_t j, int64_t item) {
  char index[16];
  std::snprintf(index, sizeof index, "%03zu", k);
  std::string itemPart = item >= 0 ? strCat("_", item) : "";
  return strCat(index, "_", ir::symbolSafe(name), "_", j, itemPart, ".npy");
}

}  // namespace kiln::cli
