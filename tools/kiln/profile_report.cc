// Turns per-kernel timings into a table a person reads (and checks against the end-to-end time)
// and a trace a viewer opens.
#include "profile_report.h"

#include <algorithm>
#include <cstdio>

#include "kiln/ir/fused_group.h"
#include "kiln/support/error.h"

namespace kiln::cli {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

std::string joinOps(const Json& ops) {
  std::string s;
  for (const Json& op : ops.asArray()) s += (s.empty() ? "" : "+") + op.asString();
  return s;
}

// "[2,3]" for a tensor; "seq(2)" for a sequence of 2 tensors, "none" for an empty optional.
std::string shapeText(const Json& outputs) {
  if (outputs.size() == 0) return "";
  std::string more = outputs.size() > 1 ? strCat(" +", outputs.size() - 1) : "";
  const Json& first = outputs[0];
  if (first.contains("count")) {
    int64_t count = first.at("count").asInt();
    return (count < 0 ? std::string("none") : strCat("seq(", count, ")")) + more;
  }
  std::string s = "[";
  const Json::Array& dims = first.at("shape").asArray();
  for (size_t i = 0; i < dims.size(); ++i) s += strCat(i ? "," : "", dims[i].asInt());
  return s + "]" + more;
}

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

ProfileSummary summarizeProfile(const std::vector<Json>& runs, double endToEndUs) {
  KILN_CHECK(!runs.empty(), "a profile needs at least one run");
  ProfileSummary s;
  s.endToEndUs = endToEndUs;
  const Json& first = runs.front();
  for (size_t k = 0; k < first.size(); ++k) {
    const Json& row = first[k];
    std::vector<double> times;
    times.reserve(runs.size());
    for (const Json& run : runs) times.push_back(run[k].at("us").asDouble());
    NodeTime n;
    n.name = row.at("name").asString();
    n.ops = joinOps(row.at("ops"));
    n.shape = shapeText(row.at("outputs"));
    n.us = median(times);
    int64_t flops = row.at("flops").asInt();
    n.gflops = n.us > 0 && flops > 0 ? static_cast<double>(flops) / (n.us * 1e3) : 0;
    s.nodesUs += n.us;
    s.nodes.push_back(std::move(n));
  }
  for (NodeTime& n : s.nodes) n.percent = s.nodesUs > 0 ? 100 * n.us / s.nodesUs : 0;
  return s;
}

std::string formatProfile(const ProfileSummary& s) {
  size_t nameWidth = 4, opsWidth = 5;
  for (const NodeTime& n : s.nodes) {
    nameWidth = std::max(nameWidth, std::min<size_t>(n.name.size(), 40));
    opsWidth = std::max(opsWidth, std::min<size_t>(n.ops.size(), 40));
  }
  std::string out = pad("#", 5) + pad("node", nameWidth + 2) + pad("fused", opsWidth + 2) +
                    pad("time us", 11, true) + pad("%", 8, true) + "  " + pad("output", 20) +
                    pad("GFLOP/s", 9, true) + "\n";
  for (size_t k = 0; k < s.nodes.size(); ++k) {
    const NodeTime& n = s.nodes[k];
    out += pad(std::to_string(k), 5) + pad(n.name.substr(0, 40), nameWidth + 2) +
           pad(n.ops.substr(0, 40), opsWidth + 2) + pad(fixed(n.us, 1), 11, true) +
           pad(fixed(n.percent, 2), 8, true) + "  " + pad(n.shape, 20) +
           pad(n.gflops > 0 ? fixed(n.gflops, 1) : "-", 9, true) + "\n";
  }
  double gap = s.endToEndUs - s.nodesUs;
  out +=
      strCat("total (sum of ", s.nodes.size(), " nodes): ", fixed(s.nodesUs, 1), " us = 100.00%\n",
             "end-to-end run():          ", fixed(s.endToEndUs, 1), " us (", gap >= 0 ? "+" : "",
             fixed(gap, 1), " us, ", fixed(s.endToEndUs > 0 ? 100 * gap / s.endToEndUs : 0, 1),
             "% outside the kernels: timer and call overhead, and noise between the runs)\n");
  return out;
}

Json chromeTrace(const Json& run, const std::string& model) {
  Json events = Json::Array{};
  for (const Json& row : run.asArray()) {
    Json e;
    e["name"] = row.at("name");
    e["cat"] = "kernel";
    e["ph"] = "X";
    e["ts"] = row.at("start_us");
    e["dur"] = row.at("us");
    e["pid"] = int64_t{1};
    e["tid"] = int64_t{1};
    Json args;
    args["fused"] = joinOps(row.at("ops"));
    args["output"] = shapeText(row.at("outputs"));
    args["flops"] = row.at("flops");
    e["args"] = std::move(args);
    events.push(std::move(e));
  }
  Json trace;
  trace["traceEvents"] = std::move(events);
  trace["displayTimeUnit"] = "ns";
  Json meta;
  meta["model"] = model;
  trace["otherData"] = std::move(meta);
  return trace;
}

std::string dumpFileName(size_t k, const std::string& name, size_t j, int64_t item) {
  char index[16];
  std::snprintf(index, sizeof index, "%03zu", k);
  std::string itemPart = item >= 0 ? strCat("_", item) : "";
  return strCat(index, "_", ir::symbolSafe(name), "_", j, itemPart, ".npy");
}

}  // namespace kiln::cli
