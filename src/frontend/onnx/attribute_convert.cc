// ONNX attributes carry their kind at run time; kiln's Attrs keep it in a variant per attribute.
#include "attribute_convert.h"

#include "kiln/support/error.h"
#include "tensor_convert.h"
#include "type_convert.h"

namespace kiln::frontend::onnx {
namespace {

using ::onnx::AttributeProto;

// Models from IR version 1 may leave `type` unset; the field that is filled tells the kind.
AttributeProto::AttributeType kindOf(const AttributeProto& a) {
  if (a.type() != AttributeProto::UNDEFINED) return a.type();
  if (a.has_i()) return AttributeProto::INT;
  if (a.has_f()) return AttributeProto::FLOAT;
  if (a.has_s()) return AttributeProto::STRING;
  if (a.has_t()) return AttributeProto::TENSOR;
  if (a.ints_size() > 0) return AttributeProto::INTS;
  if (a.floats_size() > 0) return AttributeProto::FLOATS;
  if (a.strings_size() > 0) return AttributeProto::STRINGS;
  if (a.has_g()) return AttributeProto::GRAPH;
  return AttributeProto::UNDEFINED;
}

ir::AttrValue convertOne(const AttributeProto& a, const std::string& what) {
  AttributeProto::AttributeType kind = kindOf(a);
  switch (kind) {
    case AttributeProto::INT:
      return static_cast<int64_t>(a.i());
    case AttributeProto::FLOAT:
      return static_cast<double>(a.f());
    case AttributeProto::STRING:
      return a.s();
    case AttributeProto::TENSOR:
      return tensorFromProto(a.t(), what);
    case AttributeProto::INTS:
      return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case AttributeProto::FLOATS:
      return std::vector<double>(a.floats().begin(), a.floats().end());
    case AttributeProto::STRINGS:
      return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case AttributeProto::TYPE_PROTO:  // Optional's `type`: kept in kiln's text form
      return typeFromProto(a.tp(), what).str();
    default:
      break;
  }
  std::string name = AttributeProto::AttributeType_IsValid(kind)
                         ? AttributeProto::AttributeType_Name(kind)
                         : strCat("<invalid kind ", static_cast<int>(kind), ">");
  throw Error(
      strCat(what, " is of kind ", name,
             "; kiln supports INT, FLOAT, STRING, TENSOR, INTS, FLOATS, STRINGS and TYPE_PROTO"));
}

}  // namespace

ir::Attrs convertAttributes(const ::onnx::NodeProto& node, const std::string& nodeDesc,
                            bool skipGraphs) {
  ir::Attrs attrs;
  for (const AttributeProto& a : node.attribute()) {
    if (skipGraphs && kindOf(a) == AttributeProto::GRAPH) continue;
    std::string what = strCat("attribute '", a.name(), "' of ", nodeDesc);
    if (a.name().empty()) throw Error(strCat(nodeDesc, " has an attribute without a name"));
    if (!a.ref_attr_name().empty()) {
      throw Error(strCat(what, " refers to a function attribute, which kiln does not support"));
    }
    if (attrs.has(a.name())) throw Error(strCat(what, " is given twice"));
    attrs.set(a.name(), convertOne(a, what));
  }
  return attrs;
}

}  // namespace kiln::frontend::onnx
