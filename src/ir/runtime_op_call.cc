// The runtime's op implementations called on a node's attributes and concrete inputs, with
// outputs allocated as they come.
#include "kiln/ir/runtime_op_call.h"

#include "kiln/ir/op_registry.h"
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
  size_t numInputs() const override { return inputs_.size(); }
  bool hasInput(size_t i) const override { return i < inputs_.size() && inputs_[i].defined(); }
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

 private:
  const Node& node_;
  const std::vector<NDArray>& inputs_;
  std::string label_;
  Json attrs_;
  std::vector<NDArray> outputs_;
};

}  // namespace

Json runtimeOpAttrs(const Attrs& attrs) {
  Json out = Json(Json::Object{});
  for (const auto& [name, value] : attrs.all()) {
    if (name.rfind("kiln.", 0) == 0) continue;
    std::visit(
        [&, &name = name](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, NDArray>) {
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
