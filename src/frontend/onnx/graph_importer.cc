// One ONNX graph into the graph IR (graph_importer.h): initializers, inputs, then each node, typed
// and folded as it is added.
#include "graph_importer.h"

#include <algorithm>
#include <set>

#include "attribute_convert.h"
#include "function_expand.h"
#include "input_type.h"
#include "kiln/ir/control_flow.h"
#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "legacy_opsets.h"
#include "model_check.h"
#include "tensor_convert.h"

namespace kiln::frontend::onnx {
namespace {

using ::onnx::NodeProto;

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

bool hasGraphAttribute(const NodeProto& node) {
  return std::any_of(node.attribute().begin(), node.attribute().end(), [](const auto& a) {
    return a.type() == ::onnx::AttributeProto::GRAPH || a.has_g();
  });
}

}  // namespace

GraphImporter::GraphImporter(const ::onnx::GraphProto& proto, const ImportOptions& opts,
                             int64_t opset)
    : proto_(proto), opts_(opts), modelOpset_(opset), graph_(std::make_unique<ir::Graph>()) {
  graph_->setOps(opts.ops);
  graph_->opsetVersion = std::max(opset, kLegacyTargetOpset);
  if (!proto.name().empty()) graph_->name = proto.name();
}

std::unique_ptr<ir::Graph> GraphImporter::importMain() {
  importInitializers();
  foldBudget_ = ir::FoldBudget::forGraph(*graph_);
  importInputs();
  importNodesAndOutputs();
  return std::move(graph_);
}

std::unique_ptr<ir::Graph> GraphImporter::importBody(const std::vector<ir::TensorType>& formal,
                                                     const Captured& captured) {
  if (proto_.name().empty()) graph_->name = "body";
  importInitializers();
  if (static_cast<size_t>(proto_.input_size()) != formal.size()) {
    throw Error(
        strCat("the body has ", proto_.input_size(), " inputs; the node gives it ", formal.size()));
  }
  for (size_t i = 0; i < formal.size(); ++i) {
    const ::onnx::ValueInfoProto& input = proto_.input(static_cast<int>(i));
    checkBodyInputType(input, formal[i]);
    if (values_.count(input.name())) {
      throw Error(strCat("body input '", input.name(), "' is also an initializer of the body"));
    }
    values_[input.name()] = graph_->addInput(input.name(), formal[i]);
  }
  for (const auto& [name, v] : captured) {
    values_[name] =
        v->isConstant() ? graph_->addConstant(name, *v->constant) : graph_->addInput(name, v->type);
  }
  foldBudget_ = ir::FoldBudget::forGraph(*graph_);
  importNodesAndOutputs();
  return std::move(graph_);
}

void GraphImporter::importNodesAndOutputs() {
  for (const auto& out : proto_.output()) graphOutputs_.insert(out.name());
  for (int i = 0; i < proto_.node_size(); ++i) importNode(proto_.node(i));
  for (const auto& out : proto_.output()) {
    auto it = values_.find(out.name());
    if (it == values_.end()) {
      throw Error(strCat("graph output '", out.name(), "' is not defined by any node"));
    }
    graph_->outputs().push_back(it->second);
  }
  graph_->removeDeadCode();
}

void GraphImporter::importInitializers() {
  for (const auto& init : proto_.initializer()) {
    if (values_.count(init.name())) {
      throw Error(strCat("initializer '", init.name(), "' is defined twice in the model"));
    }
    std::string what = strCat("initializer '", init.name(), "'");
    auto data = isExternal(init) ? external_.load(init, what) : tensorFromProto(init, what);
    values_[init.name()] = graph_->addConstant(init.name(), std::move(data));
  }
  if (proto_.sparse_initializer_size() > 0) {
    throw Error(strCat("sparse initializer '", proto_.sparse_initializer(0).values().name(),
                       "' is not supported by kiln; densify it before import"));
  }
}

namespace {

// Whether a node of GRAPH, or of a body nested in one, reads VALUE.
bool readsValue(const ::onnx::GraphProto& graph, const std::string& value) {
  for (const NodeProto& node : graph.node()) {
    if (std::find(node.input().begin(), node.input().end(), value) != node.input().end())
      return true;
    for (const ::onnx::AttributeProto& a : node.attribute()) {
      if (a.has_g() && readsValue(a.g(), value)) return true;
      for (const ::onnx::GraphProto& g : a.graphs())
        if (readsValue(g, value)) return true;
    }
  }
  return false;
}

}  // namespace

// "; it is read by node 'n' (op 'X', opset N)", or "; it is read in body 'b' of node ...",
// naming where an input is used; "; no node reads it" when nothing does.
std::string GraphImporter::firstReader(const std::string& value) const {
  const auto& nodes = proto_.node();
  for (int i = 0; i < nodes.size(); ++i) {
    const NodeProto& node = nodes.Get(i);
    std::string name = node.name().empty() ? strCat("#", i) : node.name();
    if (std::find(node.input().begin(), node.input().end(), value) != node.input().end())
      return strCat("; it is read by ", describe(node, name));
    for (const ::onnx::AttributeProto& a : node.attribute()) {
      bool inBody = a.has_g() && readsValue(a.g(), value);
      for (const ::onnx::GraphProto& g : a.graphs()) inBody = inBody || readsValue(g, value);
      if (inBody) return strCat("; it is read in body '", a.name(), "' of ", describe(node, name));
    }
  }
  return "; no node reads it";
}

// Graph inputs that are also initializers are weights with a declared type, not model inputs.
void GraphImporter::importInputs() {
  std::vector<std::string> inputNames;
  for (const auto& input : proto_.input()) {
    if (values_.count(input.name())) continue;
    inputNames.push_back(input.name());
    try {
      values_[input.name()] = graph_->addInput(input.name(), resolveInputType(input, opts_));
    } catch (const Error& e) {
      throw Error(strCat(e.what(), firstReader(input.name())));
    }
  }
  for (const auto& [name, shape] : opts_.inputShapes) {
    if (std::find(inputNames.begin(), inputNames.end(), name) == inputNames.end()) {
      throw Error(strCat("--input-shapes names '", name,
                         "', which is not an input of the model; its inputs are: ",
                         inputNames.empty() ? "(none)" : joined(inputNames)));
    }
  }
  keepDimBounds();
}

// The graph keeps the bounds of the symbols its inputs use (the options may bound other models'
// symbols too; the driver checks that each bounds some model's). A dim that is an expression
// (past+seq) is checked when the model runs, so each of its symbols must be some input's dim of
// its own, which sizes it.
void GraphImporter::keepDimBounds() {
  std::set<std::string> sized;
  for (const ir::Value* input : graph_->inputs()) {
    for (const opdef::Dim& d : input->type.symbolicDims) {
      if (!d.symbolName().empty()) sized.insert(d.symbolName());
      for (const std::string& symbol : d.symbols()) {
        graph_->dimBounds[symbol] = opts_.dimBounds.at(symbol);
      }
    }
  }
  for (const ir::Value* input : graph_->inputs()) {
    const opdef::DimList& dims = input->type.symbolicDims;
    for (size_t axis = 0; axis < dims.size(); ++axis) {
      for (const std::string& symbol : dims[axis].symbols()) {
        if (sized.count(symbol) != 0) continue;
        throw Error(strCat("input '", input->name, "' has dim ", axis, " = ", dims[axis].str(),
                           ", but no input has '", symbol,
                           "' as a dim of its own, which would size it"));
      }
    }
  }
}

std::string GraphImporter::nodeName(const NodeProto& node) {
  std::string base =
      node.name().empty() ? strCat(node.op_type(), "_", nodeCount_[node.op_type()]++) : node.name();
  std::string name = base;
  for (int i = 1; !nodeNames_.insert(name).second; ++i) name = strCat(base, "_", i);
  return name;
}

// A name for an omitted output that no value of the graph uses, now or later.
std::string GraphImporter::freshValueName(const std::string& base) {
  if (onnxNames_.empty()) {
    for (const auto& v : proto_.initializer()) onnxNames_.insert(v.name());
    for (const auto& v : proto_.input()) onnxNames_.insert(v.name());
    for (const auto& n : proto_.node()) onnxNames_.insert(n.output().begin(), n.output().end());
    for (const auto& [name, v] : values_) onnxNames_.insert(name);
  }
  std::string name = base;
  for (int i = 1; !onnxNames_.insert(name).second; ++i) name = strCat(base, "_", i);
  return name;
}

std::string GraphImporter::describe(const NodeProto& node, const std::string& name) const {
  std::string opset = modelOpset_ == graph_->opsetVersion
                          ? strCat(modelOpset_)
                          : strCat(modelOpset_, ", read as opset ", graph_->opsetVersion);
  return strCat("node '", name, "' (op '", node.op_type(), "', opset ", opset, ")");
}

ir::Value* GraphImporter::lookup(const std::string& value, const NodeProto& node,
                                 const std::string& name) const {
  auto it = values_.find(value);
  if (it == values_.end()) {
    throw Error(strCat(describe(node, name), " reads value '", value,
                       "', which no earlier node, initializer or input defines"));
  }
  return it->second;
}

void GraphImporter::checkSupported(const NodeProto& node, const std::string& name) const {
  std::string domain = isDefaultDomain(node.domain()) ? "" : node.domain();
  if (domain != domainOfOp(node.op_type())) {
    throw Error(strCat("node '", name, "' (op '", node.op_type(), "') is in opset domain '",
                       node.domain(),
                       "', which kiln does not support for it; kiln supports the "
                       "default ONNX domain ('' or 'ai.onnx'), and Adagrad, Momentum and Adam "
                       "from '",
                       kTrainingDomain, "'"));
  }
  const ir::OpDef* def = graph_->ops().find(node.op_type());
  if (def == nullptr || node.op_type().find('.') != std::string::npos) {
    throw Error(strCat(describe(node, name),
                       " is not supported by kiln; supported ops: ", joined(supportedOnnxOps())));
  }
  if (graph_->opsetVersion < def->sinceVersion) {
    throw Error(strCat(describe(node, name), " is not supported by kiln: kiln implements '",
                       node.op_type(), "' as defined from opset ", def->sinceVersion,
                       " on; convert the model to opset ", def->sinceVersion, " or later"));
  }
}

// Before opset 13, Softmax, LogSoftmax and Hardmax flatten the input to 2-D at `axis`; the
// graph IR has no opset per node, so the importer marks such nodes for kernel lowering.
void GraphImporter::markLegacySoftmax(const NodeProto& node, ir::Attrs& attrs) const {
  const std::string& op = node.op_type();
  bool softmaxLike = op == "Softmax" || op == "LogSoftmax" || op == "Hardmax";
  if (softmaxLike && graph_->opsetVersion < 13) attrs.set("kiln.softmax_legacy", int64_t{1});
}

std::vector<std::string> GraphImporter::outputNames(const NodeProto& node,
                                                    const std::string& name) {
  std::vector<std::string> names(node.output().begin(), node.output().end());
  while (!names.empty() && names.back().empty()) names.pop_back();
  if (names.empty()) throw Error(strCat(describe(node, name), " has no outputs"));
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) names[i] = freshValueName(strCat(name, "_unused_", i));
  }
  return names;
}

ir::Node* GraphImporter::addTyped(const NodeProto& node, const std::string& name,
                                  std::vector<ir::Value*> inputs,
                                  const std::vector<std::string>& outputNames, ir::Attrs attrs) {
  ir::Node* n =
      graph_->addNode(node.op_type(), name, std::move(inputs), outputNames, std::move(attrs));
  try {
    ir::inferTypes(*n);
  } catch (const Error& e) {  // "Dropout 'd': ..." gains the opset the model says
    std::string what = e.what(), label = ir::nodeLabel(*n) + ": ";
    if (what.rfind(label, 0) == 0) what = what.substr(label.size());
    throw Error(strCat(describe(node, name), ": ", what));
  }
  for (ir::Value* out : n->outputs) values_[out->name] = out;
  return n;
}

void GraphImporter::importNode(const NodeProto& node) {
  if (modelOpset_ < graph_->opsetVersion) {
    std::string shown = node.name().empty() ? node.op_type() : node.name();
    LegacyContext context{
        modelOpset_,
        strCat("node '", shown, "' (op '", node.op_type(), "', opset ", modelOpset_, ")"),
        [this](const std::string& v) -> const ir::Value* {
          auto it = values_.find(v);
          return it == values_.end() ? nullptr : it->second;
        },
        [this](const std::string& base) { return freshValueName(base); }};
    if (std::optional<std::vector<NodeProto>> upgraded = upgradeLegacyNode(node, context)) {
      for (const NodeProto& n : *upgraded) importCurrentNode(n);
      return;
    }
  }
  importCurrentNode(node);
}

void GraphImporter::importCurrentNode(const NodeProto& node) {
  std::string name = nodeName(node);
  if (node.op_type() == "Constant" && isDefaultDomain(node.domain())) {
    return importConstantNode(node, name);
  }
  if (expandIfFunction(node, name)) return;
  checkSupported(node, name);
  if (hasGraphAttribute(node) && !ir::bodyAttributes(node.op_type()).empty()) {
    return importControlFlow(node, name);
  }
  std::vector<ir::Value*> inputs;
  for (const std::string& in : node.input()) {
    inputs.push_back(in.empty() ? nullptr : lookup(in, node, name));
  }
  while (!inputs.empty() && inputs.back() == nullptr) inputs.pop_back();
  ir::Attrs attrs = convertAttributes(node, describe(node, name));
  markLegacySoftmax(node, attrs);
  foldIfConstant(addTyped(node, name, std::move(inputs), outputNames(node, name), attrs));
}

// Whether the graph reads an output of NODE past the first COUNT.
bool GraphImporter::readsOutputsPast(const NodeProto& node, int count) {
  if (readNames_.empty()) {
    for (const auto& n : proto_.node()) readNames_.insert(n.input().begin(), n.input().end());
    for (const auto& n : proto_.node()) {
      for (const auto& a : n.attribute()) {
        if (!a.has_g()) continue;
        for (const std::string& v : freeVariables(a.g())) readNames_.insert(v);
      }
    }
    readNames_.insert(graphOutputs_.begin(), graphOutputs_.end());
  }
  for (int i = count; i < node.output_size(); ++i) {
    if (!node.output(i).empty() && readNames_.count(node.output(i))) return true;
  }
  return false;
}

// An op kiln has no implementation of, or whose implementation lacks an output the model reads,
// is imported as its ONNX function's body when ONNX defines one (the body may hold more such
// ops).
bool GraphImporter::expandIfFunction(const NodeProto& node, const std::string& name) {
  if (!isDefaultDomain(node.domain())) return false;
  const ir::OpDef* def = graph_->ops().find(node.op_type());
  if (def != nullptr &&
      (def->computedOutputs < 0 || !readsOutputsPast(node, def->computedOutputs))) {
    return false;
  }
  std::vector<const ir::TensorType*> types;
  for (const std::string& in : node.input()) {
    types.push_back(in.empty() ? nullptr : &lookup(in, node, name)->type);
  }
  std::optional<std::vector<NodeProto>> body =
      expandFunction(node, name, graph_->opsetVersion, types);
  if (!body) return false;
  for (const NodeProto& n : *body) importCurrentNode(n);
  return true;
}

// Replaces N by constants when all it computes is known now; later nodes then see constants.
// Graph outputs stay computed: executors give every output a storage of its own.
void GraphImporter::foldIfConstant(ir::Node* n) {
  for (const ir::Value* out : n->outputs) {
    if (graphOutputs_.count(out->name)) return;
  }
  std::optional<std::vector<runtime::NDArray>> folded = ir::evaluateConstant(*n, foldBudget_);
  if (!folded) return;
  for (ir::Value* c : ir::replaceWithConstants(*graph_, n, std::move(*folded))) {
    values_[c->name] = c;
  }
}

void GraphImporter::importConstantNode(const NodeProto& node, const std::string& name) {
  ir::Attrs attrs = convertAttributes(node, describe(node, name));
  runtime::NDArray value;
  if (attrs.has("value")) {
    value = attrs.getTensor("value");
  } else if (attrs.has("value_float")) {
    float f = static_cast<float>(attrs.getFloat("value_float", 0));
    value = runtime::NDArray::fromBytes({}, runtime::DataType::float32(), &f, sizeof f);
  } else if (attrs.has("value_int")) {
    int64_t i = attrs.getInt("value_int");
    value = runtime::NDArray::fromBytes({}, runtime::DataType::int64(), &i, sizeof i);
  } else if (attrs.has("value_floats")) {
    auto d = attrs.getFloats("value_floats", {});
    std::vector<float> f(d.begin(), d.end());
    value =
        runtime::NDArray::fromBytes({static_cast<int64_t>(f.size())}, runtime::DataType::float32(),
                                    f.data(), f.size() * sizeof(float));
  } else if (attrs.has("value_ints")) {
    auto v = attrs.getInts("value_ints", {});
    value =
        runtime::NDArray::fromBytes({static_cast<int64_t>(v.size())}, runtime::DataType::int64(),
                                    v.data(), v.size() * sizeof(int64_t));
  } else {
    throw Error(strCat(describe(node, name),
                       " has none of the attributes kiln supports for it "
                       "(value, value_float, value_floats, value_int, value_ints)"));
  }
  if (node.output_size() != 1 || node.output(0).empty()) {
    throw Error(strCat(describe(node, name), " must have exactly one output"));
  }
  values_[node.output(0)] = graph_->addConstant(node.output(0), std::move(value));
}

}  // namespace kiln::frontend::onnx
