// NodeView: a graph node behind the op rules' interface; only constant inputs have known values.
#include "kiln/ir/node_view.h"

#include "element_access.h"
#include "kiln/ir/op_registry.h"

namespace kiln::ir {
namespace {

std::string inputName(size_t i, const char* what) {
  return what && *what ? strCat(what, " (input ", i, ")") : strCat("input ", i);
}

}  // namespace

std::string NodeView::label() const { return nodeLabel(node_); }

int64_t NodeView::attrInt(const std::string& name, int64_t dflt) const {
  return node_.attrs.getInt(name, dflt);
}

double NodeView::attrFloat(const std::string& name, double dflt) const {
  return node_.attrs.getFloat(name, dflt);
}

std::string NodeView::attrString(const std::string& name, const std::string& dflt) const {
  return node_.attrs.getString(name, dflt);
}

std::vector<int64_t> NodeView::attrInts(const std::string& name) const {
  return node_.attrs.getInts(name, {});
}

std::vector<double> NodeView::attrFloats(const std::string& name) const {
  return node_.attrs.getFloats(name, {});
}

bool NodeView::hasInput(size_t i) const { return i < node_.inputs.size() && node_.inputs[i]; }

opdef::Dims NodeView::inputShape(size_t i) const {
  if (!hasInput(i)) opdef::fail(*this, inputName(i, ""), " is required but was omitted");
  return node_.inputs[i]->type.shape;
}

std::string NodeView::inputTypeStr(size_t i) const {
  if (!hasInput(i)) opdef::fail(*this, inputName(i, ""), " is required but was omitted");
  return node_.inputs[i]->type.str();
}

bool NodeView::inputIsInteger(size_t i) const {
  if (!hasInput(i)) return false;
  DataType t = node_.inputs[i]->type.dtype;
  return t.lanes == 1 && (t.code == kDLInt || t.code == kDLUInt || t.code == kDLBool);
}

std::optional<std::vector<int64_t>> NodeView::inputInts(size_t i, const char* what) const {
  if (!hasInput(i)) opdef::fail(*this, inputName(i, what), " is required but was omitted");
  const Value* v = node_.inputs[i];
  DataType t = v->type.dtype;
  if (t.lanes != 1 || (t.code != kDLInt && t.code != kDLUInt)) {
    opdef::fail(*this, inputName(i, what), " has type ", t.str(), "; expected int32 or int64");
  }
  if (!v->isConstant()) return std::nullopt;
  return loadInts(*v->constant);
}

opdef::DimList NodeView::inputDims(size_t i) const {
  if (!hasInput(i)) opdef::fail(*this, inputName(i, ""), " is required but was omitted");
  return node_.inputs[i]->type.dims();
}

std::optional<opdef::DimList> NodeView::inputSizes(size_t i, const char* what) const {
  if (hasInput(i) && node_.inputs[i]->type.dtype.isBool()) {  // a comparison of sizes: 0 and 1
    const Value* v = node_.inputs[i];
    if (!v->isConstant()) return v->symbolicValue;
    std::vector<int64_t> bits = loadInts(*v->constant);
    return opdef::DimList(bits.begin(), bits.end());
  }
  std::optional<std::vector<int64_t>> ints = inputInts(i, what);  // checks the dtype
  if (ints) return opdef::DimList(ints->begin(), ints->end());
  return node_.inputs[i]->symbolicValue;
}

const opdef::DimBounds& NodeView::dimBounds() const {
  return node_.graph != nullptr ? node_.graph->dimBounds : opdef::OpView::dimBounds();
}

std::optional<std::vector<double>> NodeView::inputDoubles(size_t i, const char* what) const {
  if (!hasInput(i)) opdef::fail(*this, inputName(i, what), " is required but was omitted");
  const Value* v = node_.inputs[i];
  if (!isScalarElementType(v->type.dtype)) {
    opdef::fail(*this, inputName(i, what), " has type ", v->type.dtype.str(),
                "; expected a numeric type");
  }
  if (!v->isConstant()) return std::nullopt;
  std::vector<double> out;
  for (int64_t k = 0; k < v->constant->numel(); ++k) out.push_back(loadDouble(*v->constant, k));
  return out;
}

}  // namespace kiln::ir
