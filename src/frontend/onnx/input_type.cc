// Input types from the declarations, --input-shapes and --dim-bounds: every dim a size or a
// bounded symbol, resolved once, at import.
#include "input_type.h"

#include <optional>
#include <vector>

#include "kiln/opdef/op_view.h"
#include "kiln/support/error.h"
#include "tensor_convert.h"
#include "type_convert.h"

namespace kiln::frontend::onnx {
namespace {

// One declared dim: a fixed size, a symbolic name, or unknown (neither).
struct DeclaredDim {
  std::optional<int64_t> value;
  std::string param;
  std::string str() const { return value ? std::to_string(*value) : param.empty() ? "?" : param; }
};

std::vector<DeclaredDim> declaredDims(const std::string& name,
                                      const ::onnx::TensorShapeProto& shape) {
  std::vector<DeclaredDim> dims;
  for (const auto& d : shape.dim()) {
    DeclaredDim dim;
    if (d.has_dim_value() && d.dim_value() < 0) {
      throw Error(strCat("input '", name, "' declares dim ", dims.size(), " as ", d.dim_value(),
                         "; ONNX dims are sizes >= 0 or symbolic names"));
    }
    if (d.has_dim_value()) dim.value = d.dim_value();
    if (d.has_dim_param()) dim.param = d.dim_param();
    dims.push_back(dim);
  }
  return dims;
}

std::string dimsStr(const std::vector<DeclaredDim>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + dims[i].str();
  return s + "]";
}

// "x:[1,3,224,224]": the declared shape with 1 for every dynamic dim, as a starting point.
std::string exampleOption(const std::string& name, const std::vector<DeclaredDim>& dims) {
  std::string s = name + ":[";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += (i ? "," : "") + std::to_string(dims[i].value.value_or(1));
  }
  return s + "]";
}

// A symbolic dim of an input must be one symbol with bounds: the runtime takes its size from the
// input it is given in.
void checkSymbol(const std::string& name, size_t axis, const opdef::Dim& d,
                 const opdef::DimBounds& bounds, const char* source) {
  std::string symbol = d.symbolName();
  if (symbol.empty()) {
    throw Error(strCat(source, " gives input '", name, "' dim ", axis, " as '", d.str(),
                       "'; an input's dim is a size or one symbol name"));
  }
  if (bounds.count(symbol) == 0) {
    throw Error(strCat("input '", name, "' dim ", axis, " is symbol '", symbol,
                       "', which has no bound; pass --dim-bounds \"", symbol,
                       "<=MAX\" (its largest size)"));
  }
}

opdef::DimList checkGivenShape(const std::string& name, const opdef::DimList& given,
                               const std::optional<std::vector<DeclaredDim>>& declared,
                               const opdef::DimBounds& bounds) {
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i].isConst() && given[i].value() < 0) {
      throw Error(strCat("--input-shapes gives input '", name, "' shape ", opdef::dimListStr(given),
                         "; dims must be >= 0"));
    }
    if (!given[i].isConst()) checkSymbol(name, i, given[i], bounds, "--input-shapes");
  }
  if (!declared) return given;
  if (declared->size() != given.size()) {
    throw Error(strCat("--input-shapes gives input '", name, "' shape ", opdef::dimListStr(given),
                       " of rank ", given.size(), ", but the model declares rank ",
                       declared->size(), " (", dimsStr(*declared), ")"));
  }
  for (size_t i = 0; i < given.size(); ++i) {
    const auto& fixed = (*declared)[i].value;
    if (fixed && !(given[i].isConst() && given[i].value() == *fixed)) {
      throw Error(strCat("--input-shapes gives input '", name, "' shape ", opdef::dimListStr(given),
                         ", but the model fixes dim ", i, " to ", *fixed, " (model shape ",
                         dimsStr(*declared), ")"));
    }
  }
  return given;
}

// A dim named by an expression of symbols, as exporters name a dim that is the sum of others
// (Hugging Face's attention_mask: "past_sequence_length + sequence_length"); nullopt when PARAM
// is not one. Each symbol needs a bound: kiln::Error naming those without.
std::optional<opdef::Dim> derivedDim(const std::string& input, size_t axis,
                                     const std::string& param, const opdef::DimBounds& bounds) {
  std::string text;
  for (char c : param) {
    if (c != ' ') text += c;
  }
  std::optional<opdef::Dim> d;
  try {
    d = opdef::Dim::parse(text);
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!d->isSymbolic() || !d->symbolName().empty()) return std::nullopt;
  std::string missing;
  for (const std::string& s : d->symbols()) {
    if (bounds.count(s) == 0) missing += strCat(missing.empty() ? "" : ", ", s, "<=MAX");
  }
  if (!missing.empty()) {
    throw Error(strCat("input '", input, "' has dim ", axis, " = '", param,
                       "', a size of other symbols; bound them with --dim-bounds \"", missing,
                       "\""));
  }
  return d;
}

// The declared dims: fixed sizes, the symbolic ones that --dim-bounds bounds, and expressions of
// those.
opdef::DimList declaredShape(const std::string& name, const std::vector<DeclaredDim>& dims,
                             const opdef::DimBounds& bounds) {
  opdef::DimList shape;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].value) {
      shape.push_back(*dims[i].value);
      continue;
    }
    if (bounds.count(dims[i].param) != 0) {
      shape.push_back(opdef::Dim::symbol(dims[i].param));
      continue;
    }
    if (std::optional<opdef::Dim> d = derivedDim(name, i, dims[i].param, bounds)) {
      shape.push_back(*d);
      continue;
    }
    std::string which = dims[i].param.empty() ? std::string("an unknown dim")
                                              : strCat("symbolic dim '", dims[i].param, "'");
    std::string bound = opdef::isSymbolName(dims[i].param)
                            ? strCat(", or bound it with --dim-bounds \"", dims[i].param, "<=MAX\"")
                            : std::string();
    throw Error(strCat("input '", name, "' has ", which, " at axis ", i, " (shape ", dimsStr(dims),
                       "); pass --input-shapes ", name, ":[...], e.g. ", exampleOption(name, dims),
                       bound));
  }
  return shape;
}

}  // namespace

ir::TensorType resolveInputType(const ::onnx::ValueInfoProto& input, const ImportOptions& opts) {
  const std::string& name = input.name();
  if (input.has_type() && isListType(input.type())) {
    // A sequence's or optional's tensors may differ from run to run: their declared dims are
    // kept as they are, symbolic ones sized at run time.
    ir::TensorType type = typeFromProto(input.type(), strCat("input '", name, "'"));
    if (opts.inputShapes.count(name) != 0) {
      throw Error(strCat("--input-shapes gives a shape for input '", name, "', which is ",
                         type.str(), "; it sets the shapes of tensor inputs only"));
    }
    return type;
  }
  if (!input.has_type() || !input.type().has_tensor_type()) {
    throw Error(strCat("input '", name, "' is not a tensor, a sequence or an optional"));
  }
  const auto& tensorType = input.type().tensor_type();
  ir::TensorType type;
  type.dtype = dataTypeFromOnnx(tensorType.elem_type(), strCat("input '", name, "'"));
  std::optional<std::vector<DeclaredDim>> declared;
  if (tensorType.has_shape()) declared = declaredDims(name, tensorType.shape());
  if (auto it = opts.inputShapes.find(name); it != opts.inputShapes.end()) {
    type.setDims(checkGivenShape(name, it->second, declared, opts.dimBounds));
    return type;
  }
  if (!declared) {
    throw Error(strCat("input '", name, "' has an unknown rank; pass --input-shapes ", name,
                       ":[...] with its full shape"));
  }
  type.setDims(declaredShape(name, *declared, opts.dimBounds));
  return type;
}

void checkBodyInputType(const ::onnx::ValueInfoProto& input, const ir::TensorType& given) {
  const std::string& name = input.name();
  if (!input.has_type()) return;  // untyped: it takes what the node gives
  if (isListType(input.type()) || !given.isTensor()) {
    ir::TensorType declared = typeFromProto(input.type(), strCat("body input '", name, "'"));
    if (declared.kind != given.kind || declared.dtype != given.dtype) {
      throw Error(strCat("body input '", name, "' is declared ", declared.str(),
                         "; the node gives it ", given.str()));
    }
    return;
  }
  if (!input.type().has_tensor_type()) {
    throw Error(strCat("body input '", name, "' is not a tensor, a sequence or an optional"));
  }
  const auto& declared = input.type().tensor_type();
  if (declared.elem_type() != 0) {
    runtime::DataType dtype =
        dataTypeFromOnnx(declared.elem_type(), strCat("body input '", name, "'"));
    if (dtype != given.dtype) {
      throw Error(strCat("body input '", name, "' is declared ", dtype.str(),
                         "; the node gives it ", given.str()));
    }
  }
  if (declared.has_shape() && declared.shape().dim_size() != given.rank()) {
    throw Error(strCat("body input '", name, "' is declared with rank ",
                       declared.shape().dim_size(), "; the node gives it ", given.str()));
  }
}

}  // namespace kiln::frontend::onnx
