// Typed access to node attributes, failing with the attribute's name and actual kind.
#include <utility>

#include "kiln/ir/graph.h"
#include "kiln/support/error.h"

namespace kiln::ir {

namespace {

[[noreturn]] void wrongKind(const std::string& name, const AttrValue& v, const char* expected) {
  throw Error(strCat("attribute '", name, "' is ", attrKindName(v), ", expected ", expected));
}

}  // namespace

const char* attrKindName(const AttrValue& v) {
  static const char* const kNames[] = {"int",    "float",   "string", "ints",
                                       "floats", "strings", "tensor", "graph"};
  return kNames[v.index()];
}

int64_t Attrs::getInt(const std::string& name, int64_t dflt) const {
  return has(name) ? getInt(name) : dflt;
}

int64_t Attrs::getInt(const std::string& name) const {
  auto it = map_.find(name);
  if (it == map_.end()) throw Error(strCat("required attribute '", name, "' (int) is missing"));
  if (auto* p = std::get_if<int64_t>(&it->second)) return *p;
  wrongKind(name, it->second, "int");
}

double Attrs::getFloat(const std::string& name, double dflt) const {
  auto it = map_.find(name);
  if (it == map_.end()) return dflt;
  if (auto* p = std::get_if<double>(&it->second)) return *p;
  if (auto* p = std::get_if<int64_t>(&it->second)) return static_cast<double>(*p);
  wrongKind(name, it->second, "float");
}

std::string Attrs::getString(const std::string& name, const std::string& dflt) const {
  auto it = map_.find(name);
  if (it == map_.end()) return dflt;
  if (auto* p = std::get_if<std::string>(&it->second)) return *p;
  wrongKind(name, it->second, "string");
}

std::vector<int64_t> Attrs::getInts(const std::string& name, std::vector<int64_t> dflt) const {
  auto it = map_.find(name);
  if (it == map_.end()) return dflt;
  if (auto* p = std::get_if<std::vector<int64_t>>(&it->second)) return *p;
  wrongKind(name, it->second, "ints");
}

std::vector<double> Attrs::getFloats(const std::string& name, std::vector<double> dflt) const {
  auto it = map_.find(name);
  if (it == map_.end()) return dflt;
  if (auto* p = std::get_if<std::vector<double>>(&it->second)) return *p;
  if (auto* p = std::get_if<std::vector<int64_t>>(&it->second)) {
    return std::vector<double>(p->begin(), p->end());
  }
  wrongKind(name, it->second, "floats");
}

std::vector<std::string> Attrs::getStrings(const std::string& name,
                                           std::vector<std::string> dflt) const {
  auto it = map_.find(name);
  if (it == map_.end()) return dflt;
  if (auto* p = std::get_if<std::vector<std::string>>(&it->second)) return *p;
  // An empty list has no element to tell its kind by; the parser reads `[]` as ints.
  if (auto* p = std::get_if<std::vector<int64_t>>(&it->second); p && p->empty()) return {};
  wrongKind(name, it->second, "strings");
}

const NDArray& Attrs::getTensor(const std::string& name) const {
  auto it = map_.find(name);
  if (it == map_.end()) throw Error(strCat("required attribute '", name, "' (tensor) is missing"));
  if (auto* p = std::get_if<NDArray>(&it->second)) return *p;
  wrongKind(name, it->second, "tensor");
}

const Graph& Attrs::getGraph(const std::string& name) const {
  auto it = map_.find(name);
  if (it == map_.end()) throw Error(strCat("required attribute '", name, "' (graph) is missing"));
  if (auto* p = std::get_if<GraphAttr>(&it->second); p && *p) return **p;
  wrongKind(name, it->second, "graph");
}

Graph& Attrs::getGraph(const std::string& name) {
  return const_cast<Graph&>(std::as_const(*this).getGraph(name));
}

std::vector<std::string> Attrs::graphNames() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : map_) {
    if (std::holds_alternative<GraphAttr>(value)) names.push_back(name);
  }
  return names;
}

}  // namespace kiln::ir
