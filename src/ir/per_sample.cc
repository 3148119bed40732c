// Types of per-sample ops on a batch sized in the graph's symbols, from one sample's.
#include "kiln/ir/per_sample.h"

#include <algorithm>
#include <deque>

#include "kiln/support/error.h"

namespace kiln::ir {

bool isSymbolicBatch(const TensorType& type, const opdef::DimBounds& bounds) {
  if (!type.isTensor() || type.dtype.isString() || type.rank() == 0) return false;
  opdef::Dim batch = type.dim(0);
  if (!batch.isSymbolic() || !batch.range(bounds).has_value()) return false;
  return std::all_of(type.shape.begin() + 1, type.shape.end(), [](int64_t d) { return d >= 0; });
}

TensorType sampleType(const TensorType& type) {
  std::vector<opdef::Dim> dims = type.dims();
  KILN_CHECK(!dims.empty(), "a batch of rank 0");
  dims[0] = 1;
  TensorType t = type;
  t.setDims(dims);
  return t;
}

std::optional<opdef::Dim> symbolicBatch(const Node& node) {
  const OpDef* def = opsOf(node).find(node.op);
  if (def == nullptr || def->sampleInputs.empty() || node.graph == nullptr) return std::nullopt;
  const opdef::DimBounds& bounds = node.graph->dimBounds;
  std::optional<opdef::Dim> batch;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Value* v = node.inputs[i];
    if (v == nullptr || v->type.isStatic()) continue;
    bool sampled =
        std::count(def->sampleInputs.begin(), def->sampleInputs.end(), static_cast<int>(i)) != 0;
    if (!sampled || !isSymbolicBatch(v->type, bounds)) return std::nullopt;
    if (batch && !(*batch == v->type.dim(0))) return std::nullopt;
    batch = v->type.dim(0);
  }
  return batch;
}

void inferPerSample(Node& node, const OpDef& def, const opdef::Dim& batch) {
  Node sample;
  sample.op = node.op;
  sample.name = node.name;
  sample.graph = node.graph;
  sample.attrs = node.attrs;
  std::deque<Value> inputs;
  for (Value* v : node.inputs) {
    if (v == nullptr || v->type.isStatic()) {
      sample.inputs.push_back(v);
      continue;
    }
    Value& one = inputs.emplace_back();
    one.name = v->name;
    one.type = sampleType(v->type);
    sample.inputs.push_back(&one);
  }
  std::deque<Value> outputs(node.outputs.size());
  for (Value& v : outputs) sample.outputs.push_back(&v);
  def.inferTypes(sample);
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (node.outputs[k] == nullptr) continue;
    const TensorType& one = outputs[k].type;
    if (one.rank() == 0 || one.shape[0] != 1) {
      throw Error(strCat(nodeLabel(node), ": output ", k, " of one sample is ", one.str(),
                         "; a batch sized in symbols (", batch.str(),
                         ") needs each output's dim 0 to be the batch"));
    }
    std::vector<opdef::Dim> dims = one.dims();
    dims[0] = batch;
    node.outputs[k]->type = one;
    node.outputs[k]->type.setDims(dims);
  }
}

}  // namespace kiln::ir
