// If, Loop and Scan: each body is imported as a graph of its own, typed from its node's inputs,
// with the values of enclosing graphs it reads captured as extra inputs (kiln/ir/control_flow.h).
#include <set>

#include "attribute_convert.h"
#include "graph_importer.h"
#include "kiln/ir/control_flow.h"
#include "kiln/support/error.h"

namespace kiln::frontend::onnx {
namespace {

using ::onnx::GraphProto;
using ::onnx::NodeProto;

// A body's loop-carried types widen by at least one dim per round, so this bounds any real body.
constexpr int kMaxTypingRounds = 256;

}  // namespace

std::vector<std::string> freeVariables(const GraphProto& body) {
  std::set<std::string> defined, seen;
  std::vector<std::string> free;
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) free.push_back(name);
  };
  for (const auto& init : body.initializer()) defined.insert(init.name());
  for (const auto& input : body.input()) defined.insert(input.name());
  for (const NodeProto& node : body.node()) {
    for (const std::string& in : node.input()) use(in);
    for (const auto& a : node.attribute()) {
      if (a.has_g()) {
        for (const std::string& name : freeVariables(a.g())) use(name);
      }
    }
    defined.insert(node.output().begin(), node.output().end());
  }
  for (const auto& out : body.output()) use(out.name());
  return free;
}

void GraphImporter::importControlFlow(const NodeProto& node, const std::string& name) {
  std::vector<ir::Value*> inputs;
  for (const std::string& in : node.input()) {
    inputs.push_back(in.empty() ? nullptr : lookup(in, node, name));
  }
  if (node.op_type() == "Loop") {
    while (inputs.size() < 2) inputs.push_back(nullptr);  // M and cond, even when omitted
  }
  ir::Attrs attrs = convertAttributes(node, describe(node, name), /*skipGraphs=*/true);
  Captured captured;
  std::vector<ir::Value*> capturedInputs;
  std::set<std::string> seen;
  for (const auto& a : node.attribute()) {
    if (!a.has_g()) continue;
    for (const std::string& value : freeVariables(a.g())) {
      if (!seen.insert(value).second) continue;
      auto it = values_.find(value);
      if (it == values_.end()) {
        throw Error(strCat(describe(node, name), ": its body '", a.name(), "' reads value '", value,
                           "', which neither the body nor an enclosing graph defines before "
                           "the node"));
      }
      captured.emplace_back(value, it->second);
      if (!it->second->isConstant()) capturedInputs.push_back(it->second);
    }
  }
  for (const auto& a : node.attribute()) {
    if (!a.has_g()) continue;
    try {
      attrs.set(a.name(), ir::GraphAttr(importOneBody(node, name, a.g(), inputs, captured, attrs)));
    } catch (const Error& e) {
      throw Error(strCat(describe(node, name), ", in its body '", a.name(), "': ", e.what()));
    }
  }
  if (node.op_type() == "Scan" && graph_->opsetVersion < 9) attrs.set("kiln.batched", int64_t{1});
  if (!capturedInputs.empty()) {
    attrs.set("kiln.captured", static_cast<int64_t>(capturedInputs.size()));
  }
  inputs.insert(inputs.end(), capturedInputs.begin(), capturedInputs.end());
  addTyped(node, name, std::move(inputs), outputNames(node, name), std::move(attrs));
}

// Types the body's formal inputs from the node's inputs; a loop-carried value whose type the body
// changes (a dim that grows each iteration) is imported again with that dim sized at run time.
std::unique_ptr<ir::Graph> GraphImporter::importOneBody(
    const NodeProto& node, const std::string& name, const GraphProto& body,
    const std::vector<ir::Value*>& inputs, const Captured& captured, const ir::Attrs& attrs) {
  std::string label = strCat(node.op_type(), " '", name, "'");
  std::vector<const ir::TensorType*> types;
  types.reserve(inputs.size());
  for (const ir::Value* v : inputs) types.push_back(v ? &v->type : nullptr);
  const std::string& attr = [&]() -> const std::string& {
    for (const auto& a : node.attribute()) {
      if (&a.g() == &body) return a.name();
    }
    throw Error(strCat(label, ": the body is not one of its attributes"));
  }();
  std::vector<ir::TensorType> formal =
      ir::bodyInputTypes(label, node.op_type(), attrs, graph_->opsetVersion, types, attr);
  for (int round = 0; round < kMaxTypingRounds; ++round) {
    GraphImporter sub(body, opts_, modelOpset_);
    std::unique_ptr<ir::Graph> g = sub.importBody(formal, captured);
    std::vector<ir::TensorType> outs;
    outs.reserve(g->outputs().size());
    for (const ir::Value* v : g->outputs()) outs.push_back(v->type);
    std::vector<ir::TensorType> widened =
        ir::widenCarried(label, node.op_type(), attrs, formal, outs);
    if (widened == formal) return g;
    formal = std::move(widened);
  }
  throw Error(strCat(label, ": the types of its loop-carried values do not settle"));
}

}  // namespace kiln::frontend::onnx
