// Workload keys and schedule files: how knob choices are named outside kiln, for a tuner to write
// and `kiln compile --schedule` to read.
#include <sstream>

#include "kiln/kernel/schedule.h"
#include "kiln/support/error.h"
#include "kiln/support/json.h"

namespace kiln::kernel {
namespace {

std::string attrText(const ir::AttrValue& v) {
  std::ostringstream os;
  if (const auto* i = std::get_if<int64_t>(&v)) {
    os << *i;
  } else if (const auto* d = std::get_if<double>(&v)) {
    os << *d;
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    os << '"' << *s << '"';
  } else if (const auto* is = std::get_if<std::vector<int64_t>>(&v)) {
    os << "[";
    for (size_t k = 0; k < is->size(); ++k) os << (k ? "," : "") << (*is)[k];
    os << "]";
  } else if (const auto* ds = std::get_if<std::vector<double>>(&v)) {
    os << "[";
    for (size_t k = 0; k < ds->size(); ++k) os << (k ? "," : "") << (*ds)[k];
    os << "]";
  } else {
    os << ir::attrKindName(v);  // strings, tensors, graphs: their kind tells workloads apart
  }
  return os.str();
}

}  // namespace

std::string workloadKey(const ir::FusedGroup& group, const TargetModel& target) {
  KILN_CHECK(!group.nodes.empty(), "workload of an empty group");
  const ir::Node& n = *group.nodes.front();
  std::ostringstream os;
  os << n.op << "(";
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    os << (i ? "," : "") << (n.inputs[i] ? n.inputs[i]->type.str() : "none");
  }
  os << ")->";
  for (size_t i = 0; i < n.outputs.size(); ++i) os << (i ? "," : "") << n.outputs[i]->type.str();
  os << "{";
  bool first = true;
  for (const auto& [name, value] : n.attrs.all()) {
    os << (first ? "" : ",") << name << "=" << attrText(value);
    first = false;
  }
  os << "}@" << target.isa << "x" << target.lanes;
  return os.str();
}

KnobOverrides parseScheduleFile(const std::string& text, const std::string& path) {
  std::vector<std::pair<int, Json>> records;
  std::string trimmed = text.substr(std::min(text.size(), text.find_first_not_of(" \t\r\n")));
  if (!trimmed.empty() && trimmed[0] == '[') {
    Json all = Json::parse(text);
    for (size_t i = 0; i < all.size(); ++i) records.emplace_back(static_cast<int>(i) + 1, all[i]);
  } else {
    std::istringstream in(text);
    int line = 0;
    for (std::string s; std::getline(in, s);) {
      ++line;
      if (s.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        Json record = Json::parse(s);  // named: g++ 12 warns on a temporary variant in a pair
        records.emplace_back(line, std::move(record));
      } catch (const Error& e) {
        throw Error(strCat("schedule file '", path, "', line ", line, ": ", e.what()));
      }
    }
  }
  KnobOverrides out;
  for (const auto& [line, r] : records) {
    try {
      const std::string& workload = r.at("workload").asString();
      for (const auto& [name, value] : r.at("knobs").asObject()) {
        out[workload][name] = value.asInt();
      }
    } catch (const Error& e) {
      throw Error(strCat("schedule file '", path, "', record ", line, ": ", e.what(),
                         "; expected {\"workload\": \"...\", \"knobs\": {\"name\": integer}}"));
    }
  }
  return out;
}

std::string scheduleRecord(const KernelSchedule& schedule) {
  Json::Object knobs, ranges;
  for (const KnobChoice& k : schedule.knobs) {
    knobs[k.name] = Json(k.value);
    ranges[k.name] = Json(Json::Array{Json(k.lo), Json(k.hi)});
  }
  return Json(Json::Object{{"workload", Json(schedule.workload)},
                           {"knobs", Json(knobs)},
                           {"ranges", Json(ranges)}})
      .dump();
}

}  // namespace kiln::kernel
