// Builds the graph IR from a validated ModelProto, node by node, folding constants as it goes so
// that shape chains (Shape -> Gather -> Concat -> Reshape) give static shapes immediately.
#include "kiln/frontend/onnx/importer.h"

#include <algorithm>
#include <limits>
#include <set>

#include "attribute_convert.h"
#include "function_expand.h"
#include "input_type.h"
#include "kiln/ir/constant_eval.h"
#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
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

class Importer {
 public:
  Importer(const ::onnx::ModelProto& model, const ImportOptions& opts)
      : model_(model), opts_(opts), graph_(std::make_unique<ir::Graph>()) {
    graph_->setOps(opts.ops);
  }

  std::unique_ptr<ir::Graph> run() {
    const auto& g = model_.graph();
    if (!g.name().empty()) graph_->name = g.name();
    graph_->opsetVersion = defaultOpsetVersion(model_);
    importInitializers();
    foldBudget_ = ir::FoldBudget::forGraph(*graph_);
    importInputs();
    for (const auto& out : g.output()) graphOutputs_.insert(out.name());
    for (int i = 0; i < g.node_size(); ++i) importNode(g.node(i));
    for (const auto& out : g.output()) graph_->outputs().push_back(values_.at(out.name()));
    graph_->removeDeadCode();
    return std::move(graph_);
  }

 private:
  void importInitializers() {
    for (const auto& init : model_.graph().initializer()) {
      if (values_.count(init.name())) {
        throw Error(strCat("initializer '", init.name(), "' is defined twice in the model"));
      }
      auto data = tensorFromProto(init, strCat("initializer '", init.name(), "'"));
      values_[init.name()] = graph_->addConstant(init.name(), std::move(data));
    }
    if (model_.graph().sparse_initializer_size() > 0) {
      throw Error(strCat("sparse initializer '",
                         model_.graph().sparse_initializer(0).values().name(),
                         "' is not supported by kiln; densify it before import"));
    }
  }

  // "; it is read by node 'n' (op 'X', opset N)", naming where an input is used.
  std::string firstReader(const std::string& value) const {
    const auto& nodes = model_.graph().node();
    for (int i = 0; i < nodes.size(); ++i) {
      const NodeProto& node = nodes.Get(i);
      if (std::find(node.input().begin(), node.input().end(), value) != node.input().end()) {
        std::string name = node.name().empty() ? strCat("#", i) : node.name();
        return strCat("; it is read by ", describe(node, name));
      }
    }
    return "";
  }

  // Graph inputs that are also initializers are weights with a declared type, not model inputs.
  void importInputs() {
    std::vector<std::string> inputNames;
    for (const auto& input : model_.graph().input()) {
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
  }

  std::string nodeName(const NodeProto& node) {
    std::string base = node.name().empty()
                           ? strCat(node.op_type(), "_", nodeCount_[node.op_type()]++)
                           : node.name();
    std::string name = base;
    for (int i = 1; !nodeNames_.insert(name).second; ++i) name = strCat(base, "_", i);
    return name;
  }

  // A name for an omitted output that no value of the model uses, now or later.
  std::string freshValueName(const std::string& base) {
    if (onnxNames_.empty()) {
      const auto& g = model_.graph();
      for (const auto& v : g.initializer()) onnxNames_.insert(v.name());
      for (const auto& v : g.input()) onnxNames_.insert(v.name());
      for (const auto& n : g.node()) onnxNames_.insert(n.output().begin(), n.output().end());
    }
    std::string name = base;
    for (int i = 1; !onnxNames_.insert(name).second; ++i) name = strCat(base, "_", i);
    return name;
  }

  std::string describe(const NodeProto& node, const std::string& name) const {
    return strCat("node '", name, "' (op '", node.op_type(), "', opset ", graph_->opsetVersion,
                  ")");
  }

  void checkSupported(const NodeProto& node, const std::string& name) const {
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
  void markLegacySoftmax(const NodeProto& node, ir::Attrs& attrs) const {
    const std::string& op = node.op_type();
    bool softmaxLike = op == "Softmax" || op == "LogSoftmax" || op == "Hardmax";
    if (softmaxLike && graph_->opsetVersion < 13) attrs.set("kiln.softmax_legacy", int64_t{1});
  }

  void importNode(const NodeProto& node) {
    std::string name = nodeName(node);
    if (node.op_type() == "Constant" && isDefaultDomain(node.domain())) {
      return importConstantNode(node, name);
    }
    if (expandIfFunction(node, name)) return;
    checkSupported(node, name);
    std::vector<ir::Value*> inputs;
    for (const std::string& in : node.input()) {
      inputs.push_back(in.empty() ? nullptr : values_.at(in));
    }
    while (!inputs.empty() && inputs.back() == nullptr) inputs.pop_back();
    std::vector<std::string> outputNames(node.output().begin(), node.output().end());
    while (!outputNames.empty() && outputNames.back().empty()) outputNames.pop_back();
    if (outputNames.empty()) throw Error(strCat(describe(node, name), " has no outputs"));
    for (size_t i = 0; i < outputNames.size(); ++i) {
      if (outputNames[i].empty()) outputNames[i] = freshValueName(strCat(name, "_unused_", i));
    }
    ir::Attrs attrs = convertAttributes(node, describe(node, name));
    markLegacySoftmax(node, attrs);
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
    foldIfConstant(n);
  }

  // Whether the model reads an output of NODE past the first COUNT.
  bool readsOutputsPast(const NodeProto& node, int count) {
    if (readNames_.empty()) {
      for (const auto& n : model_.graph().node())
        readNames_.insert(n.input().begin(), n.input().end());
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
  bool expandIfFunction(const NodeProto& node, const std::string& name) {
    if (!isDefaultDomain(node.domain())) return false;
    const ir::OpDef* def = graph_->ops().find(node.op_type());
    if (def != nullptr &&
        (def->computedOutputs < 0 || !readsOutputsPast(node, def->computedOutputs))) {
      return false;
    }
    std::vector<const ir::TensorType*> types;
    for (const std::string& in : node.input()) {
      types.push_back(in.empty() ? nullptr : &values_.at(in)->type);
    }
    std::optional<std::vector<NodeProto>> body =
        expandFunction(node, name, graph_->opsetVersion, types);
    if (!body) return false;
    for (const NodeProto& n : *body) importNode(n);
    return true;
  }

  // Replaces N by constants when all it computes is known now; later nodes then see constants.
  // Graph outputs stay computed: executors give every output a storage of its own.
  void foldIfConstant(ir::Node* n) {
    for (const ir::Value* out : n->outputs) {
      if (graphOutputs_.count(out->name)) return;
    }
    std::optional<std::vector<runtime::NDArray>> folded = ir::evaluateConstant(*n, foldBudget_);
    if (!folded) return;
    for (ir::Value* c : ir::replaceWithConstants(*graph_, n, std::move(*folded))) {
      values_[c->name] = c;
    }
  }

  void importConstantNode(const NodeProto& node, const std::string& name) {
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
      value = runtime::NDArray::fromBytes({static_cast<int64_t>(f.size())},
                                          runtime::DataType::float32(), f.data(),
                                          f.size() * sizeof(float));
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

  const ::onnx::ModelProto& model_;
  const ImportOptions& opts_;
  std::unique_ptr<ir::Graph> graph_;
  std::map<std::string, ir::Value*> values_;  // ONNX value name -> its value in graph_
  std::set<std::string> nodeNames_;
  std::set<std::string> graphOutputs_;
  std::set<std::string> onnxNames_;       // every value name in the model, filled on first need
  std::set<std::string> readNames_;       // every value a node or the graph output reads, likewise
  std::map<std::string, int> nodeCount_;  // per op type, for generated node names
  ir::FoldBudget foldBudget_{0};          // set from the initializers once they are imported
};

}  // namespace

std::vector<std::string> supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const std::string& op : ir::registeredOps()) {
    if (op.find('.') == std::string::npos) ops.push_back(op);
  }
  if (std::find(ops.begin(), ops.end(), "Constant") == ops.end()) ops.push_back("Constant");
  std::sort(ops.begin(), ops.end());
  return ops;
}

std::unique_ptr<ir::Graph> importOnnx(const std::vector<uint8_t>& modelBytes,
                                      const ImportOptions& opts, const std::string& source) {
  ::onnx::ModelProto model;
  if (modelBytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw Error(
        strCat("'", source, "' is ", modelBytes.size(),
               " bytes; ONNX models over 2 GB need external data, which kiln does not support"));
  }
  if (!model.ParseFromArray(modelBytes.data(), static_cast<int>(modelBytes.size()))) {
    throw Error(strCat("'", source, "' is not a valid ONNX model: its ", modelBytes.size(),
                       " bytes do not parse as an ONNX ModelProto (corrupt or truncated file)"));
  }
  checkModel(model, source);
  return Importer(model, opts).run();
}

std::unique_ptr<ir::Graph> importOnnx(const std::string& path, const ImportOptions& opts) {
  if (!fileExists(path)) throw Error(strCat("ONNX model file '", path, "' does not exist"));
  return importOnnx(readFile(path), opts, path);
}

}  // namespace kiln::frontend::onnx
