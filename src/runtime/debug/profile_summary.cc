// Per-kernel timings of the debug executor turned into per-node medians and a trace.
#include "kiln/runtime/profile_summary.h"

#include "kiln/runtime/timing_stats.h"
#include "kiln/support/error.h"

namespace kiln::runtime {
namespace {

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
    n.us = summarize(std::move(times)).median;
    int64_t flops = row.at("flops").asInt();
    n.gflops = n.us > 0 && flops > 0 ? static_cast<double>(flops) / (n.us * 1e3) : 0;
    s.nodesUs += n.us;
    s.nodes.push_back(std::move(n));
  }
  for (NodeTime& n : s.nodes) n.percent = s.nodesUs > 0 ? 100 * n.us / s.nodesUs : 0;
  s.lastRun = runs.back();
  return s;
}

ProfileSummary profileExecutor(const Module& debugExecutor, int64_t repeat,
                               const std::function<double()>& wholeRunMs) {
  if (repeat < 1) throw Error(strCat("profile: repeat ", repeat, "; expected >= 1"));
  PackedFunc profile = debugExecutor["profile"];
  std::vector<Json> runs;
  std::vector<double> whole;
  for (int64_t r = 0; r < repeat; ++r) {
    runs.push_back(profile(int64_t{0}).asJson());
    whole.push_back(wholeRunMs());
  }
  return summarizeProfile(runs, summarize(whole).median * 1000);
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

}  // namespace kiln::runtime
