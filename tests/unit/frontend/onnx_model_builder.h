// Builds small ONNX models in memory, so importer tests state exactly what each model holds.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace kiln::test {

// A declared dim: a fixed size or a symbolic name.
using Dim = std::variant<int64_t, std::string>;

class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(int64_t opset = 13) {
    model_.set_ir_version(8);
    model_.set_producer_name("kiln-test");
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model_.mutable_graph()->set_name("test_graph");
  }

  ::onnx::ModelProto& model() { return model_; }
  ::onnx::GraphProto& graph() { return *model_.mutable_graph(); }

  ::onnx::ValueInfoProto* input(const std::string& name, const std::vector<Dim>& dims,
                                int32_t elemType = ::onnx::TensorProto::FLOAT) {
    return declare(graph().add_input(), name, dims, elemType);
  }
  ::onnx::ValueInfoProto* output(const std::string& name, const std::vector<Dim>& dims = {},
                                 int32_t elemType = ::onnx::TensorProto::FLOAT) {
    return declare(graph().add_output(), name, dims, elemType);
  }

  ::onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* n = graph().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return n;
  }

  ::onnx::TensorProto* floatInit(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::vector<float>& values) {
    auto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return t;
  }
  ::onnx::TensorProto* int64Init(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& values) {
    auto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return t;
  }

  std::vector<uint8_t> bytes() const {
    std::string s = model_.SerializeAsString();
    return {s.begin(), s.end()};
  }

 private:
  static ::onnx::ValueInfoProto* declare(::onnx::ValueInfoProto* v, const std::string& name,
                                         const std::vector<Dim>& dims, int32_t elemType) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elemType);
    auto* shape = tt->mutable_shape();
    for (const Dim& d : dims) {
      auto* dim = shape->add_dim();
      if (std::holds_alternative<int64_t>(d)) {
        dim->set_dim_value(std::get<int64_t>(d));
      } else {
        dim->set_dim_param(std::get<std::string>(d));
      }
    }
    return v;
  }

  ::onnx::ModelProto model_;
};

inline ::onnx::AttributeProto* addIntsAttr(::onnx::NodeProto* n, const std::string& name,
                                           const std::vector<int64_t>& values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
  return a;
}

inline ::onnx::AttributeProto* addIntAttr(::onnx::NodeProto* n, const std::string& name,
                                          int64_t value) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(value);
  return a;
}

inline ::onnx::AttributeProto* addFloatAttr(::onnx::NodeProto* n, const std::string& name,
                                            float value) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(value);
  return a;
}

}  // namespace kiln::test
