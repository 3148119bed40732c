// A runtime op's call seen by the op rules of src/opdef: every input's shape and value is known.
#pragma once

#include "kiln/opdef/op_view.h"
#include "kiln/runtime/runtime_op.h"

namespace kiln::runtime::ops {

class ContextView : public opdef::OpView {
 public:
  explicit ContextView(const RuntimeOpContext& ctx) : ctx_(ctx) {}
  const std::string& op() const override { return ctx_.op(); }
  std::string label() const override { return ctx_.label(); }
  bool hasAttr(const std::string& name) const override;
  int64_t attrInt(const std::string& name, int64_t dflt) const override;
  double attrFloat(const std::string& name, double dflt) const override;
  std::string attrString(const std::string& name, const std::string& dflt) const override;
  std::vector<int64_t> attrInts(const std::string& name) const override;
  std::vector<double> attrFloats(const std::string& name) const override;
  size_t numInputs() const override { return ctx_.numInputs(); }
  size_t numOutputs() const override { return ctx_.numOutputs(); }
  bool hasInput(size_t i) const override { return i < ctx_.numInputs() && ctx_.hasInput(i); }
  opdef::Dims inputShape(size_t i) const override;
  std::string inputTypeStr(size_t i) const override;
  bool inputIsInteger(size_t i) const override;
  std::optional<std::vector<int64_t>> inputInts(size_t i, const char* what) const override;
  std::optional<std::vector<double>> inputDoubles(size_t i, const char* what) const override;

 private:
  const RuntimeOpContext& ctx_;
};

}  // namespace kiln::runtime::ops
