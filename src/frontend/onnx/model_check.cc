// A truncated file can still parse as a ModelProto, so the importer validates structure first.
#include "model_check.h"

#include <onnx/defs/schema.h>

#include <set>

#include "kiln/support/error.h"

namespace kiln::frontend::onnx {
namespace {

[[noreturn]] void invalid(const std::string& source, const std::string& why) {
  throw Error(strCat("'", source, "' is not a valid ONNX model: ", why));
}

std::string describeNode(const ::onnx::NodeProto& node, int index) {
  return node.name().empty() ? strCat("node #", index, " (op '", node.op_type(), "')")
                             : strCat("node '", node.name(), "' (op '", node.op_type(), "')");
}

void checkOpsets(const ::onnx::ModelProto& model, const std::string& source) {
  std::set<std::string> domains;
  bool hasDefault = false;
  for (const auto& opset : model.opset_import()) {
    std::string domain = isDefaultDomain(opset.domain()) ? "" : opset.domain();
    if (!domains.insert(domain).second) {
      invalid(source, strCat("opset domain '", opset.domain(), "' is imported twice"));
    }
    if (domain.empty()) {
      hasDefault = true;
      if (opset.version() < 1) {
        invalid(source, strCat("default-domain opset version ", opset.version(), " is not >= 1"));
      }
      // A newer opset may have changed what an operator means; guessing would give wrong results.
      int64_t newest = newestKnownOpset();
      if (opset.version() > newest) {
        throw Error(strCat("'", source, "' uses opset ", opset.version(),
                           " of the default ONNX domain; this kiln knows opsets 1 to ", newest,
                           ". Export the model with opset ", newest, " or lower"));
      }
    }
  }
  if (!hasDefault && !domains.count(kTrainingDomain)) {
    invalid(source, model.opset_import_size() == 0
                        ? "it has no opset import (the model header is missing or cut short)"
                        : "it has no opset import for the default ONNX domain");
  }
}

void checkValues(const ::onnx::GraphProto& graph, const std::string& source) {
  std::set<std::string> defined;
  auto define = [&](const std::string& name, const std::string& by) {
    if (name.empty()) invalid(source, strCat(by, " defines a value with an empty name"));
    // A graph input may repeat an initializer's name: that is how ONNX gives weights a type.
    defined.insert(name);
  };
  for (const auto& init : graph.initializer()) define(init.name(), "an initializer");
  for (const auto& input : graph.input()) define(input.name(), "a graph input");
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    if (node.op_type().empty()) invalid(source, strCat("node #", i, " has no op type"));
    for (const std::string& in : node.input()) {
      if (!in.empty() && defined.count(in) == 0) {
        invalid(source, strCat(describeNode(node, i), " reads value '", in,
                               "', which no earlier node, initializer or graph input defines"));
      }
    }
    for (const std::string& out : node.output()) {
      if (out.empty()) continue;  // an omitted optional output
      if (!defined.insert(out).second) {
        invalid(source, strCat(describeNode(node, i), " defines value '", out,
                               "', which is already defined"));
      }
    }
  }
  if (graph.output_size() == 0) invalid(source, "its graph has no outputs");
  std::set<std::string> outputs;
  for (const auto& output : graph.output()) {
    if (defined.count(output.name()) == 0) {
      invalid(source, strCat("graph output '", output.name(), "' is not defined by any node"));
    }
    // Outputs are found by name (npz members, get_output_index): two with one name are ambiguous.
    if (!outputs.insert(output.name()).second) {
      invalid(source, strCat("graph output '", output.name(), "' is listed twice"));
    }
  }
}

}  // namespace

int64_t newestKnownOpset() {
  const auto& ranges = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = ranges.find(::onnx::ONNX_DOMAIN);
  KILN_CHECK(it != ranges.end(), "the ONNX library has no default domain");
  return it->second.second;
}

bool isDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string domainOfOp(const std::string& opType) {
  bool training = opType == "Adagrad" || opType == "Momentum" || opType == "Adam";
  return training ? kTrainingDomain : "";
}

void checkModel(const ::onnx::ModelProto& model, const std::string& source) {
  if (!model.has_graph()) invalid(source, "it has no graph");
  checkOpsets(model, source);
  checkValues(model.graph(), source);
}

int64_t defaultOpsetVersion(const ::onnx::ModelProto& model) {
  for (const auto& opset : model.opset_import()) {
    if (isDefaultDomain(opset.domain())) return opset.version();
  }
  return newestKnownOpset();  // a model of the training domain only
}

}  // namespace kiln::frontend::onnx
