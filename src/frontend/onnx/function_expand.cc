// Function bodies come from ONNX's schemas: a fixed FunctionProto, or one built from the node's
// attributes and input types (context-dependent functions such as the loss operators). The body is
// inlined here rather than by ONNX's FunctionExpandHelper, which in ONNX 1.12 gives an attribute
// the node leaves out the empty "default" of an optional attribute that has none (so
// SoftmaxCrossEntropyLoss would ignore class 0).
#include "function_expand.h"

#include <onnx/defs/schema.h>

#include <functional>
#include <map>
#include <set>

#include "kiln/ir/onnx_dtype.h"
#include "kiln/support/error.h"
#include "type_convert.h"

namespace kiln::frontend::onnx {
namespace {

std::vector<::onnx::TypeProto> typeProtos(const std::vector<const ir::TensorType*>& types) {
  std::vector<::onnx::TypeProto> out(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i] != nullptr) out[i] = typeToProto(*types[i]);
  }
  return out;
}

// The node's attributes, and the schema's defaults for those it leaves out (when there is one).
std::map<std::string, ::onnx::AttributeProto> attributesOf(const ::onnx::NodeProto& node,
                                                           const ::onnx::OpSchema& schema) {
  std::map<std::string, ::onnx::AttributeProto> attrs;
  for (const auto& entry : schema.attributes()) {
    const ::onnx::AttributeProto& def = entry.second.default_value;
    if (def.type() != ::onnx::AttributeProto::UNDEFINED) attrs[entry.first] = def;
  }
  for (const ::onnx::AttributeProto& a : node.attribute()) attrs[a.name()] = a;
  return attrs;
}

using Rename = std::function<std::string(const std::string&)>;

// In subgraph G of a function's node, the values G reads from the function (not defined in G)
// renamed by RENAME, through nested subgraphs.
void renameCaptured(::onnx::GraphProto& g, const Rename& rename) {
  std::set<std::string> local;
  for (const auto& v : g.input()) local.insert(v.name());
  for (const auto& t : g.initializer()) local.insert(t.name());
  for (const auto& n : g.node()) local.insert(n.output().begin(), n.output().end());
  Rename inner = [&](const std::string& v) { return local.count(v) ? v : rename(v); };
  for (auto& n : *g.mutable_node()) {
    for (auto& in : *n.mutable_input()) {
      if (!in.empty()) in = inner(in);
    }
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) renameCaptured(*a.mutable_g(), inner);
      for (auto& sub : *a.mutable_graphs()) renameCaptured(sub, inner);
    }
  }
  for (auto& out : *g.mutable_output()) {
    if (!local.count(out.name())) out.set_name(rename(out.name()));
  }
}

// BODY's nodes with its inputs and outputs renamed to NODE's, its internal values named after
// NAME, and attribute references replaced by ATTRS (a reference to an absent one is dropped).
std::vector<::onnx::NodeProto> inlineBody(
    const ::onnx::NodeProto& node, const ::onnx::FunctionProto& body, const std::string& name,
    const std::map<std::string, ::onnx::AttributeProto>& attrs) {
  std::map<std::string, std::string> renamed;
  for (int i = 0; i < body.input_size(); ++i) {
    renamed[body.input(i)] = i < node.input_size() ? node.input(i) : "";
  }
  for (int i = 0; i < body.output_size() && i < node.output_size(); ++i) {
    if (!node.output(i).empty()) renamed[body.output(i)] = node.output(i);
  }
  Rename rename = [&](const std::string& v) {
    if (v.empty()) return v;
    auto it = renamed.find(v);
    return it != renamed.end() ? it->second : strCat(name, "/", v);
  };
  std::vector<::onnx::NodeProto> nodes;
  for (const ::onnx::NodeProto& b : body.node()) {
    ::onnx::NodeProto n;
    n.set_op_type(b.op_type());
    n.set_domain(b.domain());
    n.set_name(strCat(name, "/", b.op_type(), "_", nodes.size()));
    for (const std::string& in : b.input()) n.add_input(rename(in));
    for (const std::string& out : b.output()) n.add_output(rename(out));
    for (const ::onnx::AttributeProto& a : b.attribute()) {
      if (a.ref_attr_name().empty()) {
        ::onnx::AttributeProto* copy = n.add_attribute();
        *copy = a;
        if (copy->has_g()) renameCaptured(*copy->mutable_g(), rename);
        for (auto& sub : *copy->mutable_graphs()) renameCaptured(sub, rename);
        continue;
      }
      auto it = attrs.find(a.ref_attr_name());
      if (it == attrs.end()) continue;
      ::onnx::AttributeProto* copy = n.add_attribute();
      *copy = it->second;
      copy->set_name(a.name());
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

}  // namespace

std::optional<std::vector<::onnx::NodeProto>> expandFunction(
    const ::onnx::NodeProto& node, const std::string& name, int64_t opset,
    const std::vector<const ir::TensorType*>& inputTypes) {
  const ::onnx::OpSchema* schema =
      ::onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(opset), "");
  if (schema == nullptr) return std::nullopt;
  ::onnx::FunctionProto body;
  try {
    if (schema->HasContextDependentFunction()) {
      ::onnx::FunctionBodyBuildContextImpl context(node, typeProtos(inputTypes));
      if (!schema->BuildContextDependentFunction(context, body)) {
        throw Error("ONNX could not build its function body for these inputs and attributes");
      }
    } else if (schema->HasFunction()) {
      body = *schema->GetFunction();
    } else {
      return std::nullopt;
    }
  } catch (const std::exception& e) {  // kiln's own Error, or one of ONNX's
    throw Error(strCat("expanding '", node.op_type(), "' (opset ", opset,
                       ") into its ONNX function: ", e.what()));
  }
  return inlineBody(node, body, name, attributesOf(node, *schema));
}

}  // namespace kiln::frontend::onnx
