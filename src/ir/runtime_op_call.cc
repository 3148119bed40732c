// The runtime's op implementations called on a node's attributes and concrete inputs, with
// outputs allocated as they come.
#include "kiln/ir/runtime_op_call.h"

#include <map>
#include <memory>

#include "kiln/ir/control_flow.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/reference_eval.h"
#include "kiln/runtime/runtime_op.h"
#include "kiln/support/base64.h"
#include "kiln/support/error.h"

namespace kiln::ir {
namespace {

template <typename T>
Json listJson(const std::vector<T>& v) {
  Json::Array a;
  for (const T& e : v) a.emplace_back(e);
  return Json(std::move(a));
}

Json tensorJson(const NDArray& t) {
  Json j;
  j["dtype"] = t.dtype().str();
  Json::Array dims;
  for (int64_t d : t.shape()) dims.emplace_back(d);
  j["shape"] = Json(std::move(dims));
  j["data"] = base64Encode(std::string(static_cast<const char*>(t.data()), t.nbytes()));
  return j;
}

// A control-flow body evaluated by the reference evaluator, for the runtime's If, Loop and Scan
// run on the compiler's side (constant folding, `kiln compare`).
class ReferenceBody final : public runtime::Subgraph {
 public:
  ReferenceBody(const Graph& body, std::vector<NDArray> captured)
      : body_(body), formal_(body.inputs().size() - captured.size()), inputs_(formal_) {
    inputs_.insert(inputs_.end(), captured.begin(), captured.end());
  }
  size_t numInputs() const override { return formal_; }
  size_t numOutputs() const override { return body_.outputs().size(); }
  void setInput(size_t i, const NDArray& value) override {
    KILN_CHECK(i < formal_, "body input ", i, " of ", formal_);
    inputs_[i] = value.clone();
  }
  void run() override { outputs_ = reference::evaluateGraph(body_, inputs_); }
  const NDArray& output(size_t i) const override { return outputs_.at(i); }
  const runtime::Shape& outputShape(size_t i) const override {
    return body_.outputs().at(i)->type.shape;
  }
  runtime::ValueKind inputKind(size_t i) const override { return body_.inputs().at(i)->type.kind; }
  runtime::ValueKind outputKind(size_t i) const override {
    return body_.outputs().at(i)->type.kind;
  }
  // The reference evaluator holds tensors only: a body that carries a sequence or optional is
  // evaluated by the compiled model alone.
  void setListInput(size_t i, const runtime::TensorList& /*value*/) override {
    throw Error(strCat("reference: body input ", i, " '", body_.inputs().at(i)->name, "' is ",
                       body_.inputs().at(i)->type.str(),
                       "; the reference evaluator evaluates tensors only"));
  }
  const runtime::TensorList& listOutput(size_t i) const override {
    throw Error(strCat("reference: body output ", i, " is ", body_.outputs().at(i)->type.str(),
                       "; the reference evaluator evaluates tensors only"));
  }

 private:
  const Graph& body_;
  size_t formal_;
  std::vector<NDArray> inputs_, outputs_;
};

// One evaluation: NODE's inputs given, outputs allocated when the op asks for them.
class Call final : public runtime::RuntimeOpContext {
 public:
  Call(const Node& node, const std::vector<NDArray>& inputs)
      : node_(node),
        inputs_(inputs),
        label_(nodeLabel(node)),
        attrs_(runtimeOpAttrs(node.attrs)),
        outputs_(node.outputs.size()) {}

  const std::string& op() const override { return node_.op; }
  const std::string& label() const override { return label_; }
  const Json& attrs() const override { return attrs_; }
  size_t numInputs() const override { return formalInputCount(node_); }
  bool hasInput(size_t i) const override { return i < numInputs() && inputs_[i].defined(); }
  const NDArray& input(size_t i) const override {
    if (!hasInput(i)) throw Error(strCat(label_, ": input ", i, " is required"));
    return inputs_[i];
  }
  size_t numOutputs() const override { return node_.outputs.size(); }
  DataType outputDtype(size_t i) const override {
    return i < node_.outputs.size() ? node_.outputs[i]->type.dtype : DataType::int64();
  }
  NDArray output(size_t i, const runtime::Shape& shape) override {
    NDArray a = NDArray::empty(shape, outputDtype(i));
    if (i < outputs_.size()) outputs_[i] = a;
    return a;
  }
  std::vector<NDArray> take() { return std::move(outputs_); }
  runtime::Subgraph& body(const std::string& attr) override {
    std::unique_ptr<ReferenceBody>& b = bodies_[attr];
    if (!b) {
      size_t first = formalInputCount(node_);
      auto captured = static_cast<size_t>(node_.attrs.getInt("kiln.captured", 0));
      std::vector<NDArray> values(inputs_.begin() + static_cast<std::ptrdiff_t>(first),
                                  inputs_.begin() + static_cast<std::ptrdiff_t>(first + captured));
      b = std::make_unique<ReferenceBody>(node_.attrs.getGraph(attr), std::move(values));
    }
    return *b;
  }

 private:
  const Node& node_;
  const std::vector<NDArray>& inputs_;
  std::string label_;
  Json attrs_;
  std::vector<NDArray> outputs_;
  std::map<std::string, std::unique_ptr<ReferenceBody>> bodies_;
};

}  // namespace

Json runtimeOpAttrs(const Attrs& attrs) {
  Json out = Json(Json::Object{});
  for (const auto& [name, value] : attrs.all()) {
    // kiln's marks stay in the compiler, but for Scan's batch axis (opset 8), which the runtime
    // reads.
    if (name.rfind("kiln.", 0) == 0 && name != "kiln.batched") continue;
    std::visit(
        [&, &name = name](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, GraphAttr>) {
            // subgraphs travel compiled, as the kernel's bodies (kiln/driver/compile_bodies.h)
          } else if constexpr (std::is_same_v<T, NDArray>) {
            out[name] = tensorJson(v);
          } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double> ||
                               std::is_same_v<T, std::string>) {
            out[name] = Json(v);
          } else {
            out[name] = listJson(v);
          }
        },
        value);
  }
  return out;
}

std::vector<NDArray> runRuntimeOp(const Node& node, const std::vector<NDArray>& inputs) {
  runtime::RuntimeOpFn fn = runtime::findRuntimeOp(node.op);
  if (fn == nullptr) {
    throw Error(strCat(nodeLabel(node), ": the runtime does not execute '", node.op, "'"));
  }
  Call call(node, inputs);
  fn(call);
  std::vector<NDArray> outs = call.take();
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i].defined()) {
      throw Error(strCat(nodeLabel(node), ": the runtime computed no output ", i));
    }
  }
  return outs;
}

}  // namespace kiln::ir
