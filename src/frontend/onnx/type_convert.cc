// Sequence and optional types between ONNX's TypeProto and kiln's TensorType.
#include "type_convert.h"

#include "kiln/ir/onnx_dtype.h"
#include "kiln/support/error.h"
#include "tensor_convert.h"

namespace kiln::frontend::onnx {
namespace {

ir::TensorType tensorFromProto(const ::onnx::TypeProto::Tensor& t, const std::string& what) {
  ir::TensorType out;
  out.dtype = dataTypeFromOnnx(t.elem_type(), what);
  if (!t.has_shape()) {
    out.unranked = true;
    return out;
  }
  for (const auto& d : t.shape().dim()) {
    if (d.has_dim_value() && d.dim_value() < 0) {
      throw Error(strCat(what, " declares dim ", out.shape.size(), " as ", d.dim_value(),
                         "; ONNX dims are sizes >= 0 or symbolic names"));
    }
    out.shape.push_back(d.has_dim_value() ? d.dim_value() : runtime::kDynamicDim);
  }
  return out;
}

void tensorToProto(const ir::TensorType& t, ::onnx::TypeProto::Tensor* out) {
  out->set_elem_type(static_cast<int32_t>(ir::onnxDataTypeCode(t.dtype)));
  if (t.unranked) return;
  auto* shape = out->mutable_shape();
  for (int64_t d : t.shape) {
    auto* dim = shape->add_dim();
    if (d != runtime::kDynamicDim) dim->set_dim_value(d);
  }
}

ir::TensorType sequenceFromProto(const ::onnx::TypeProto::Sequence& s, const std::string& what) {
  if (!s.has_elem_type() || !s.elem_type().has_tensor_type()) {
    throw Error(strCat(what,
                       " is a sequence of something other than tensors; kiln supports "
                       "sequences of tensors"));
  }
  return ir::TensorType::sequenceOf(tensorFromProto(s.elem_type().tensor_type(), what));
}

}  // namespace

bool isListType(const ::onnx::TypeProto& type) {
  return type.has_sequence_type() || type.has_optional_type();
}

ir::TensorType typeFromProto(const ::onnx::TypeProto& type, const std::string& what) {
  if (type.has_tensor_type()) return tensorFromProto(type.tensor_type(), what);
  if (type.has_sequence_type()) return sequenceFromProto(type.sequence_type(), what);
  if (type.has_optional_type() && type.optional_type().has_elem_type()) {
    const ::onnx::TypeProto& elem = type.optional_type().elem_type();
    if (elem.has_tensor_type()) {
      return ir::TensorType::optionalOf(tensorFromProto(elem.tensor_type(), what));
    }
    if (elem.has_sequence_type()) {
      return ir::TensorType::optionalOf(sequenceFromProto(elem.sequence_type(), what));
    }
  }
  throw Error(strCat(what,
                     " is neither a tensor, a sequence of tensors nor an optional of one "
                     "(maps and sparse tensors are not supported)"));
}

::onnx::TypeProto typeToProto(const ir::TensorType& type) {
  ::onnx::TypeProto out;
  switch (type.kind) {
    case ir::ValueKind::kTensor:
      tensorToProto(type, out.mutable_tensor_type());
      break;
    case ir::ValueKind::kSequence:
      tensorToProto(type, out.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type());
      break;
    case ir::ValueKind::kOptionalTensor:
      tensorToProto(type, out.mutable_optional_type()->mutable_elem_type()->mutable_tensor_type());
      break;
    case ir::ValueKind::kOptionalSequence:
      tensorToProto(type, out.mutable_optional_type()
                              ->mutable_elem_type()
                              ->mutable_sequence_type()
                              ->mutable_elem_type()
                              ->mutable_tensor_type());
      break;
  }
  return out;
}

}  // namespace kiln::frontend::onnx
