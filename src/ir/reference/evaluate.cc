// evaluateNode and evaluateGraph: exact constant evaluation where it applies, the reference op
// table otherwise; outputs take the types the node's type inference gave them.
#include <cstdint>
#include <map>

#include "kiln/ir/constant_eval.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/reference_eval.h"
#include "kiln/ir/runtime_op_call.h"
#include "kiln/runtime/runtime_op.h"
#include "kiln/support/error.h"
#include "op_table.h"

namespace kiln::ir::reference {

const HostTensor& Call::x(size_t i) const {
  if (!has(i)) fail(strCat("input ", i, " is omitted; expected a tensor"));
  return *in[i];
}

Dims Call::intsFrom(const std::string& name, size_t input, Dims dflt) const {
  if (!name.empty() && node.attrs.has(name)) return node.attrs.getInts(name, {});
  if (!has(input)) return dflt;
  Dims v;
  for (double d : in[input]->data) v.push_back(static_cast<int64_t>(d));
  return v;
}

void Call::fail(const std::string& what) const {
  throw Error(strCat(nodeLabel(node), ": reference: ", what));
}

const OpTable& opTable() {
  static const OpTable kTable = [] {
    OpTable t;
    addPointwiseRefs(t);
    addNetworkRefs(t);
    addDataDependentRefs(t);
    return t;
  }();
  return kTable;
}

bool hasReference(const std::string& op) {
  return isConstantEvaluable(op) || opTable().count(op) != 0;
}

namespace {

// The exact evaluators of constant folding, on a scratch graph whose inputs are INPUTS.
std::optional<std::vector<NDArray>> evaluateExactly(const Node& node,
                                                    const std::vector<NDArray>& inputs,
                                                    int64_t opset) {
  Graph scratch;
  scratch.opsetVersion = opset;
  if (node.graph != nullptr) scratch.setOps(node.graph->opsPtr());
  std::vector<Value*> ins;
  for (size_t i = 0; i < inputs.size(); ++i) {
    bool given = node.inputs[i] != nullptr && inputs[i].defined();
    ins.push_back(given ? scratch.addConstant(strCat("in", i), inputs[i]) : nullptr);
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < node.outputs.size(); ++i) names.push_back(strCat("out", i));
  Node* copy = scratch.addNode(node.op, node.name, ins, names, node.attrs);
  FoldBudget unlimited(UINT64_MAX);
  return evaluateConstant(*copy, unlimited);
}

NDArray asOutput(const Node& node, size_t i, HostTensor h) {
  const TensorType& type = node.outputs[i]->type;
  KILN_CHECK(runtime::shapeFits(type.shape, h.shape), nodeLabel(node),
             ": the reference gave output ", i, " shape ", runtime::shapeStr(h.shape),
             "; type inference says ", type.str());
  h.dtype = type.dtype;
  return toNDArray(h);
}

}  // namespace

std::vector<NDArray> evaluateNode(const Node& node, const std::vector<NDArray>& inputs,
                                  int64_t opset) {
  KILN_CHECK(inputs.size() == node.inputs.size(), nodeLabel(node), ": ", inputs.size(),
             " inputs given for ", node.inputs.size());
  if (isConstantEvaluable(node.op)) {
    if (auto outs = evaluateExactly(node, inputs, opset)) return *outs;
  }
  auto it = opTable().find(node.op);
  if (it == opTable().end() && runtime::findRuntimeOp(node.op) != nullptr) {
    // An op only the runtime executes: its oracle is the ONNX suite's data, not a second
    // implementation here.
    return runRuntimeOp(node, inputs);
  }
  if (it == opTable().end()) {
    throw Error(
        strCat(nodeLabel(node), ": no reference implementation of ", node.op, " for these inputs"));
  }
  Call call{node, {}, opset};
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (node.inputs[i] != nullptr && inputs[i].defined()) {
      call.in.emplace_back(fromNDArray(inputs[i]));
    } else {
      call.in.emplace_back(std::nullopt);
    }
  }
  std::vector<HostTensor> hosts = it->second(call);
  KILN_CHECK(hosts.size() == node.outputs.size(), nodeLabel(node), ": the reference gave ",
             hosts.size(), " outputs for ", node.outputs.size());
  std::vector<NDArray> outs;
  for (size_t i = 0; i < hosts.size(); ++i) outs.push_back(asOutput(node, i, std::move(hosts[i])));
  return outs;
}

namespace {

// Values are NDArrays here: a graph with a sequence or optional is evaluated by the compiled
// model alone.
void requireTensors(const Graph& graph) {
  auto check = [](const Value* v) {
    if (v != nullptr && !v->type.isTensor()) {
      throw Error(strCat("reference: '", v->name, "' is ", v->type.str(),
                         "; the reference evaluator evaluates tensors only"));
    }
  };
  for (const Value* v : graph.inputs()) check(v);
  for (const Node* n : graph.nodes()) {
    for (const Value* v : n->outputs) check(v);
  }
}

void checkInputs(const Graph& graph, const std::vector<NDArray>& inputs) {
  requireTensors(graph);
  if (inputs.size() != graph.inputs().size()) {
    throw Error(strCat("reference: ", inputs.size(), " inputs given; the graph has ",
                       graph.inputs().size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = graph.inputs()[i];
    TensorType got{inputs[i].dtype(), inputs[i].shape()};
    if (got.dtype != v->type.dtype || !runtime::shapeFits(v->type.shape, got.shape)) {
      throw Error(
          strCat("reference: input '", v->name, "' is ", got.str(), "; expected ", v->type.str()));
    }
  }
}

}  // namespace

std::vector<NDArray> evaluateGraph(const Graph& graph, const std::vector<NDArray>& inputs,
                                   const NodeSink& sink) {
  checkInputs(graph, inputs);
  std::map<const Value*, NDArray> values;
  std::map<const Value*, size_t> usesLeft;
  for (size_t i = 0; i < inputs.size(); ++i) values[graph.inputs()[i]] = inputs[i];
  for (const Node* n : graph.nodes()) {
    for (const Value* v : n->inputs) {
      if (v != nullptr) ++usesLeft[v];
    }
  }
  auto valueOf = [&](const Value* v) -> NDArray {
    if (v->isConstant()) return *v->constant;
    auto it = values.find(v);
    KILN_CHECK(it != values.end(), "reference: value '", v->name, "' used before it is computed");
    return it->second;
  };
  for (const Node* n : graph.nodes()) {
    std::vector<NDArray> ins;
    for (const Value* v : n->inputs) ins.push_back(v != nullptr ? valueOf(v) : NDArray());
    std::vector<NDArray> outs = evaluateNode(*n, ins, graph.opsetVersion);
    for (size_t j = 0; j < outs.size(); ++j) values[n->outputs[j]] = outs[j];
    if (sink) sink(*n, outs);
    for (const Value* v : n->inputs) {
      if (v != nullptr && --usesLeft[v] == 0 && !graph.isGraphOutput(v)) values.erase(v);
    }
  }
  std::vector<NDArray> outputs;
  for (const Value* v : graph.outputs()) outputs.push_back(valueOf(v));
  return outputs;
}

}  // namespace kiln::ir::reference
