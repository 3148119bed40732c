// A graph node seen by the op rules of src/opdef: its attributes, its inputs' types, and the
// values of its constant inputs.
#pragma once

#include "kiln/ir/graph.h"
#include "kiln/opdef/op_view.h"

namespace kiln::ir {

class NodeView : public opdef::OpView {
 public:
  explicit NodeView(const Node& node) : node_(node) {}
  const std::string& op() const override { return node_.op; }
  std::string label() const override;
  bool hasAttr(const std::string& name) const override { return node_.attrs.has(name); }
  int64_t attrInt(const std::string& name, int64_t dflt) const override;
  double attrFloat(const std::string& name, double dflt) const override;
  std::string attrString(const std::string& name, const std::string& dflt) const override;
  std::vector<int64_t> attrInts(const std::string& name) const override;
  std::vector<double> attrFloats(const std::string& name) const override;
  size_t numInputs() const override { return node_.inputs.size(); }
  size_t numOutputs() const override { return node_.outputs.size(); }
  bool hasInput(size_t i) const override;
  opdef::Dims inputShape(size_t i) const override;
  std::string inputTypeStr(size_t i) const override;
  bool inputIsInteger(size_t i) const override;
  std::optional<std::vector<int64_t>> inputInts(size_t i, const char* what) const override;
  std::optional<std::vector<double>> inputDoubles(size_t i, const char* what) const override;
  opdef::DimList inputDims(size_t i) const override;
  std::optional<opdef::DimList> inputSizes(size_t i, const char* what) const override;
  const opdef::DimBounds& dimBounds() const override;

 private:
  const Node& node_;
};

}  // namespace kiln::ir
