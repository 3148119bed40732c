// ContextView: a runtime op's call behind the op rules' interface.
#include "context_view.h"

#include "op_util.h"

namespace kiln::runtime::ops {

bool ContextView::hasAttr(const std::string& name) const { return ops::hasAttr(ctx_, name); }

int64_t ContextView::attrInt(const std::string& name, int64_t dflt) const {
  return ops::attrInt(ctx_, name, dflt);
}

double ContextView::attrFloat(const std::string& name, double dflt) const {
  return ops::attrFloat(ctx_, name, dflt);
}

std::string ContextView::attrString(const std::string& name, const std::string& dflt) const {
  return ops::attrString(ctx_, name, dflt);
}

std::vector<int64_t> ContextView::attrInts(const std::string& name) const {
  return ops::attrInts(ctx_, name);
}

std::vector<double> ContextView::attrFloats(const std::string& name) const {
  return ops::attrFloats(ctx_, name);
}

opdef::Dims ContextView::inputShape(size_t i) const {
  if (!hasInput(i)) fail(ctx_, "input ", i, " is required but was omitted");
  return ctx_.input(i).shape();
}

std::string ContextView::inputTypeStr(size_t i) const {
  if (!hasInput(i)) fail(ctx_, "input ", i, " is required but was omitted");
  return strCat(ctx_.input(i).dtype().str(), shapeStr(ctx_.input(i).shape()));
}

bool ContextView::inputIsInteger(size_t i) const {
  if (!hasInput(i)) return false;
  DataType t = ctx_.input(i).dtype();
  return t.lanes == 1 && (t.code == kDLInt || t.code == kDLUInt || t.code == kDLBool);
}

std::optional<std::vector<int64_t>> ContextView::inputInts(size_t i, const char* what) const {
  if (!hasInput(i)) fail(ctx_, what, " (input ", i, ") is required but was omitted");
  return ops::inputInts(ctx_, i, what);
}

std::optional<std::vector<double>> ContextView::inputDoubles(size_t i, const char* what) const {
  if (!hasInput(i)) fail(ctx_, what, " (input ", i, ") is required but was omitted");
  return toDoubles(ctx_, ctx_.input(i));
}

}  // namespace kiln::runtime::ops
