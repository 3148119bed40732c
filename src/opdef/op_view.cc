// The helpers every op rule shares: list text, attribute-or-input lists, sizes from doubles.
#include "kiln/opdef/op_view.h"

namespace kiln::opdef {

std::string listStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += strCat(i ? "," : "", v[i]);
  return s + "]";
}

std::string dimsStr(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += i ? "," : "";
    s += dims[i] == kUnknownDim ? std::string("?") : std::to_string(dims[i]);
  }
  return s + "]";
}

std::string dimListStr(const DimList& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + dims[i].str();
  return s + "]";
}

DimList OpView::inputDims(size_t i) const {
  DimList dims;
  for (int64_t d : inputShape(i)) dims.push_back(Dim::fromShape(d));
  return dims;
}

std::optional<DimList> OpView::inputSizes(size_t i, const char* what) const {
  std::optional<std::vector<int64_t>> ints = inputInts(i, what);
  if (!ints) return std::nullopt;
  return DimList(ints->begin(), ints->end());
}

Dims knownDims(const DimList& dims) {
  Dims out;
  for (const Dim& d : dims) out.push_back(d.valueOr(kUnknownDim));
  return out;
}

const DimBounds& OpView::dimBounds() const {
  static const DimBounds kNone;
  return kNone;
}

bool allKnown(const Dims& dims) {
  for (int64_t d : dims) {
    if (d == kUnknownDim) return false;
  }
  return true;
}

int64_t product(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t listLength(const OpView& op, size_t i, const char* what) {
  Dims shape = op.inputShape(i);
  if (shape.size() != 1) {
    fail(op, what, " (input ", i, ") is ", op.inputTypeStr(i), "; expected a 1-D tensor");
  }
  if (shape[0] == kUnknownDim) {
    fail(op, what, " (input ", i, ") is ", op.inputTypeStr(i),
         ": its length is known only at run time, so the output rank is unknown; kiln needs it");
  }
  return shape[0];
}

DimList dimsFromInput(const OpView& op, size_t i, const char* what) {
  int64_t length = listLength(op, i, what);
  std::optional<DimList> values = op.inputSizes(i, what);
  if (!values) return DimList(static_cast<size_t>(length), Dim::unknown());
  for (const Dim& d : *values) {
    if (d.isConst() && d.value() < 0)
      fail(op, what, " ", dimListStr(*values), " has a negative dim");
  }
  return *values;
}

IntList intsFromAttrOrInput(const OpView& op, const char* attr, size_t input) {
  bool inAttr = op.hasAttr(attr);
  bool inInput = op.hasInput(input);
  if (inAttr && inInput) {
    fail(op, "'", attr, "' is given both as an attribute (older opset form) and as input ", input,
         "; expected only one");
  }
  if (inAttr) return {true, op.attrInts(attr)};
  if (inInput) return {true, op.inputInts(input, attr)};
  return {};
}

int64_t sizeFromDouble(const OpView& op, double v, const char* what) {
  if (!(v >= 0 && v < 4.0e18)) fail(op, what, " is ", v, "; expected a size from 0 to 4e18");
  return static_cast<int64_t>(v);
}

}  // namespace kiln::opdef
