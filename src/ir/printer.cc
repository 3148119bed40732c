// Writes a graph as text: one line per constant and per node, deterministic and re-parseable.
#include "kiln/ir/printer.h"

#include <cstdio>

#include "crc32.h"
#include "kiln/opdef/dim_bounds.h"
#include "kiln/support/error.h"
#include "text_syntax.h"

namespace kiln::ir {

namespace {

std::string valueRef(const Value* v) {
  if (!v) return "_";
  std::string s = "%";
  return s.append(nameToken(v->name));
}

std::string tensorData(const NDArray& a) {
  if (a.numel() > kMaxInlineElements) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "elided(crc=0x%08x)", crc32(a.data(), a.nbytes()));
    return buf;
  }
  std::string s = "[";
  for (int64_t i = 0; i < a.numel(); ++i) {
    s += i ? ", " : "";
    s += formatElement(a, i);
  }
  return s + "]";
}

std::string tensorType(const NDArray& a) { return TensorType{a.dtype(), a.shape()}.str(); }

std::string attrValue(const AttrValue& v) {
  switch (v.index()) {
    case 0:
      return std::to_string(std::get<int64_t>(v));
    case 1:
      return formatFloat(std::get<double>(v));
    case 2:
      return quoteString(std::get<std::string>(v));
    case 3: {
      std::string s = "[";
      const auto& ints = std::get<std::vector<int64_t>>(v);
      for (size_t i = 0; i < ints.size(); ++i) {
        s += i ? "," : "";
        s += std::to_string(ints[i]);
      }
      return s + "]";
    }
    case 4: {
      const auto& floats = std::get<std::vector<double>>(v);
      std::string s = floats.empty() ? "floats[" : "[";
      for (size_t i = 0; i < floats.size(); ++i) {
        s += i ? ", " : "";
        s += formatFloat(floats[i]);
      }
      return s + "]";
    }
    case 5: {
      const auto& strings = std::get<std::vector<std::string>>(v);
      std::string s = strings.empty() ? "strings[" : "[";
      for (size_t i = 0; i < strings.size(); ++i) {
        s += i ? ", " : "";
        s += quoteString(strings[i]);
      }
      return s + "]";
    }
    case 6: {
      const NDArray& a = std::get<NDArray>(v);
      return "tensor " + tensorType(a) + " " + tensorData(a);
    }
    default: {  // a subgraph, indented one level deeper than its node
      std::string text = printGraph(*std::get<GraphAttr>(v));
      text.pop_back();  // the final newline
      std::string s;
      for (char c : text) s += c == '\n' ? std::string("\n  ") : std::string(1, c);
      return s;
    }
  }
}

std::string attrsText(const Attrs& attrs) {
  if (attrs.all().empty()) return "";
  std::string s = " {";
  bool first = true;
  for (const auto& [name, value] : attrs.all()) {
    s += first ? "" : ", ";
    s += nameToken(name) + "=" + attrValue(value);
    first = false;
  }
  return s + "}";
}

}  // namespace

std::string printNode(const Node& node) {
  std::string s;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    s += i ? ", " : "";
    s += valueRef(node.outputs[i]);
  }
  if (!node.outputs.empty()) s += " = ";
  s += nameToken(node.op);
  bool nameShown = node.outputs.empty() || !node.outputs[0] || node.name != node.outputs[0]->name;
  if (nameShown) s.append("[").append(nameToken(node.name)).append("]");
  s += "(";
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    s += i ? ", " : "";
    s += valueRef(node.inputs[i]);
  }
  s.append(")").append(attrsText(node.attrs));
  if (!node.outputs.empty()) {
    s += " : ";
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      s += i ? ", " : "";
      s += (node.outputs[i] ? node.outputs[i]->type.str() : std::string("?"));
    }
  }
  if (node.group >= 0) s += " #group=" + std::to_string(node.group);
  return s;
}

std::string printGraph(const Graph& graph) {
  std::string s = "graph " + nameToken(graph.name) + "(";
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const Value* v = graph.inputs()[i];
    s += i ? ", " : "";
    s += valueRef(v) + ": " + v->type.str();
  }
  s += ")";
  if (graph.opsetVersion != 13) s += " opset " + std::to_string(graph.opsetVersion);
  if (!graph.dimBounds.empty()) s += " dims " + quoteString(opdef::dimBoundsStr(graph.dimBounds));
  s += " {\n";
  for (const Value* c : graph.constants()) {
    s += "  " + valueRef(c) + " = const " + c->type.str() + " " + tensorData(*c->constant) + "\n";
  }
  for (const Node* node : graph.nodes()) s += "  " + printNode(*node) + "\n";
  s += "  return";
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    s += i ? ", " : " ";
    s += valueRef(graph.outputs()[i]);
  }
  return s + "\n}\n";
}

}  // namespace kiln::ir
