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
