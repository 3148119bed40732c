// The text and JSON forms of a compare report.
#include "compare_report.h"

#include <cstdio>
#include <sstream>

#include "kiln/support/error.h"

namespace kiln::cli {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string indexStr(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? "," : "") + std::to_string(idx[i]);
  return s + "]";
}

std::string describe(const driver::ValueComparison& v) {
  return strCat("node '", v.node, "' (", v.ops, "), output '", v.value, "' ", v.type,
                v.unblocked ? " (kiln holds it in channel blocks)" : "");
}

std::string errorLine(const driver::ValueComparison& v) {
  return strCat("  max |kiln - reference| = ", num(v.maxError), " at ", indexStr(v.worstIndex),
                " (kiln ", num(v.kilnValue), ", reference ", num(v.referenceValue), "); tolerance ",
                num(v.tolerance), ", largest |reference| ", num(v.scale), "\n");
}

// The agreeing output closest to its tolerance.
const driver::ValueComparison* closest(const driver::CompareReport& report) {
  const driver::ValueComparison* best = nullptr;
  auto ratio = [](const driver::ValueComparison& v) {
    return v.tolerance > 0 ? v.maxError / v.tolerance : (v.maxError > 0 ? 1.0 : 0.0);
  };
  for (const driver::ValueComparison& v : report.values) {
    if (best == nullptr || ratio(v) > ratio(*best)) best = &v;
  }
  return best;
}

Json entry(const driver::ValueComparison& v) {
  Json j;
  j["kernel"] = static_cast<int64_t>(v.kernel);
  j["node"] = v.node;
  j["ops"] = v.ops;
  j["value"] = v.value;
  j["type"] = v.type;
  j["unblocked"] = v.unblocked;
  j["max_error"] = v.maxError;
  j["scale"] = v.scale;
  j["tolerance"] = v.tolerance;
  Json idx = Json(Json::Array{});
  for (int64_t i : v.worstIndex) idx.push(Json(i));
  j["worst_index"] = std::move(idx);
  j["kiln"] = v.kilnValue;
  j["reference"] = v.referenceValue;
  j["agrees"] = v.agrees();
  return j;
}

}  // namespace

std::string formatCompare(const driver::CompareReport& report,
                          const driver::CompareOptions& options, bool all) {
  std::ostringstream out;
  out << "compared " << report.values.size() << " outputs of " << report.kernels
      << " compiled nodes with the reference (rtol " << num(options.rtol) << ", atol "
      << num(options.atol) << "); " << report.unmatched.size()
      << " outputs are compiler temporaries with no model value\n";
  if (all) {
    for (const driver::ValueComparison& v : report.values) {
      out << (v.agrees() ? "  ok    " : "  FAIL  ") << v.kernel << " " << v.node << " (" << v.ops
          << ") '" << v.value << "': error " << num(v.maxError) << " / tolerance "
          << num(v.tolerance) << "\n";
    }
  }
  if (const driver::ValueComparison* d = report.firstDivergence()) {
    size_t before = static_cast<size_t>(d - report.values.data());
    out << "first divergence: " << describe(*d) << "\n" << errorLine(*d);
    out << "  "
        << (before == 1 ? "the compared output before it agrees"
                        : strCat("the ", before, " compared outputs before it agree"))
        << "\n";
  } else if (const driver::ValueComparison* c = closest(report)) {
    out << "all " << report.values.size()
        << " compared outputs agree; closest to its tolerance: " << describe(*c) << "\n"
        << errorLine(*c);
  } else {
    out << "no compiled output has a model value to compare\n";
  }
  return out.str();
}

Json compareJson(const driver::CompareReport& report, const driver::CompareOptions& options) {
  Json j;
  j["kernels"] = static_cast<int64_t>(report.kernels);
  j["compared"] = static_cast<int64_t>(report.values.size());
  j["unmatched"] = static_cast<int64_t>(report.unmatched.size());
  j["rtol"] = options.rtol;
  j["atol"] = options.atol;
  const driver::ValueComparison* d = report.firstDivergence();
  j["agree"] = d == nullptr;
  j["first_divergence"] = d != nullptr ? entry(*d) : Json();
  Json values = Json(Json::Array{});
  for (const driver::ValueComparison& v : report.values) values.push(entry(v));
  j["values"] = std::move(values);
  return j;
}

}  // namespace kiln::cli
