// Sequence and optional values in files: ONNX's SequenceProto and OptionalProto.
#include <onnx/onnx-data_pb.h>

#include <limits>

#include "kiln/frontend/onnx/tensor_proto.h"
#include "kiln/support/error.h"
#include "kiln/support/file.h"
#include "tensor_convert.h"

namespace kiln::frontend::onnx {
namespace {

using runtime::TensorList;
using runtime::ValueKind;

template <typename Proto>
Proto parseAs(const std::vector<uint8_t>& bytes, const std::string& source, const char* what) {
  Proto proto;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(strCat("'", source, "' is not a valid ONNX ", what, " file (", bytes.size(),
                       " bytes that do not parse)"));
  }
  return proto;
}

TensorList fromSequence(const ::onnx::SequenceProto& seq, const std::string& source) {
  bool tensors =
      seq.elem_type() == ::onnx::SequenceProto::TENSOR ||
      (seq.elem_type() == ::onnx::SequenceProto::UNDEFINED && seq.tensor_values_size() == 0);
  if (!tensors || seq.sparse_tensor_values_size() || seq.sequence_values_size() ||
      seq.map_values_size() || seq.optional_values_size()) {
    throw Error(strCat("'", source,
                       "' holds a sequence of something other than tensors (elem_type ",
                       seq.elem_type(), "); kiln supports sequences of tensors"));
  }
  TensorList list;
  for (int i = 0; i < seq.tensor_values_size(); ++i) {
    list.items.push_back(
        tensorFromProto(seq.tensor_values(i), strCat("tensor ", i, " of '", source, "'")));
  }
  return list;
}

void toSequence(const TensorList& list, ::onnx::SequenceProto* seq) {
  seq->set_elem_type(::onnx::SequenceProto::TENSOR);
  for (const runtime::NDArray& a : list.items) tensorToProto(a, seq->add_tensor_values());
}

TensorList fromOptional(const ::onnx::OptionalProto& opt, const std::string& source,
                        ValueKind kind) {
  if (opt.elem_type() == ::onnx::OptionalProto::UNDEFINED) return TensorList::noValue();
  if (kind == ValueKind::kOptionalTensor && opt.elem_type() == ::onnx::OptionalProto::TENSOR &&
      opt.has_tensor_value()) {
    return TensorList{{tensorFromProto(opt.tensor_value(), strCat("the tensor of '", source, "'"))},
                      false};
  }
  if (kind == ValueKind::kOptionalSequence && opt.elem_type() == ::onnx::OptionalProto::SEQUENCE &&
      opt.has_sequence_value()) {
    return fromSequence(opt.sequence_value(), source);
  }
  throw Error(strCat(
      "'", source, "' holds an optional of elem_type ", opt.elem_type(), "; expected an optional ",
      kind == ValueKind::kOptionalTensor ? "tensor (1)" : "sequence (3)", " or an empty one (0)"));
}

}  // namespace

TensorList parseListProto(const std::vector<uint8_t>& bytes, const std::string& source,
                          ValueKind kind) {
  switch (kind) {
    case ValueKind::kSequence:
      return fromSequence(parseAs<::onnx::SequenceProto>(bytes, source, "SequenceProto"), source);
    case ValueKind::kOptionalTensor:
    case ValueKind::kOptionalSequence:
      return fromOptional(parseAs<::onnx::OptionalProto>(bytes, source, "OptionalProto"), source,
                          kind);
    case ValueKind::kTensor:
      break;
  }
  throw Error(strCat("'", source, "': a tensor is read with parseTensorProto, not as a list"));
}

TensorList loadListProto(const std::string& path, ValueKind kind) {
  return parseListProto(readFile(path), path, kind);
}

std::vector<uint8_t> serializeListProto(const TensorList& list, ValueKind kind,
                                        const std::string& name) {
  std::string bytes;
  if (kind == ValueKind::kSequence) {
    ::onnx::SequenceProto seq;
    seq.set_name(name);
    toSequence(list, &seq);
    bytes = seq.SerializeAsString();
  } else {
    ::onnx::OptionalProto opt;
    opt.set_name(name);
    if (list.none) {
      opt.set_elem_type(::onnx::OptionalProto::UNDEFINED);
    } else if (kind == ValueKind::kOptionalTensor) {
      KILN_CHECK(list.items.size() == 1, "an optional tensor holds one tensor");
      opt.set_elem_type(::onnx::OptionalProto::TENSOR);
      tensorToProto(list.items[0], opt.mutable_tensor_value());
    } else {
      opt.set_elem_type(::onnx::OptionalProto::SEQUENCE);
      toSequence(list, opt.mutable_sequence_value());
    }
    bytes = opt.SerializeAsString();
  }
  return {bytes.begin(), bytes.end()};
}

void saveListProto(const TensorList& list, ValueKind kind, const std::string& name,
                   const std::string& path) {
  std::vector<uint8_t> bytes = serializeListProto(list, kind, name);
  writeFileAtomic(path, bytes.data(), bytes.size());
}

}  // namespace kiln::frontend::onnx
