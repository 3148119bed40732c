// The reference op table behind evaluateNode: one entry per ONNX op, reading the node's
// attributes and calling the plain implementations of reference.h.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kiln/ir/reference.h"

namespace kiln::ir::reference {

// One node's evaluation: its inputs as host tensors (nullopt where omitted) and its opset.
struct Call {
  const Node& node;
  std::vector<std::optional<HostTensor>> in;
  int64_t opset;

  bool has(size_t i) const { return i < in.size() && in[i].has_value(); }
  const HostTensor& x(size_t i) const;  // a required input; throws naming the node when omitted
  const HostTensor* opt(size_t i) const { return has(i) ? &*in[i] : nullptr; }
  DataType outType(size_t i = 0) const { return node.outputs[i]->type.dtype; }
  const Attrs& attrs() const { return node.attrs; }
  // An integer list from attribute NAME, else from input INPUT, else DFLT.
  Dims intsFrom(const std::string& name, size_t input, Dims dflt) const;
  // Throws kiln::Error: "<node label>: reference: <parts>".
  [[noreturn]] void fail(const std::string& what) const;
};

using RefFn = std::function<std::vector<HostTensor>(const Call&)>;
using OpTable = std::map<std::string, RefFn>;

void addPointwiseRefs(OpTable& table);      // pointwise_refs.cc
void addNetworkRefs(OpTable& table);        // network_refs.cc
void addDataDependentRefs(OpTable& table);  // data_dependent_refs.cc
const OpTable& opTable();

}  // namespace kiln::ir::reference
