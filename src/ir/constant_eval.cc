// Constant evaluation entry point: decides whether a node can be evaluated, infers its output
// types on a scratch copy (so callers need not have typed it) and dispatches to the evaluators.
#include "kiln/ir/constant_eval.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "element_access.h"
#include "eval/evaluators.h"
#include "kiln/ir/op_registry.h"
#include "kiln/support/error.h"

namespace kiln::ir {

namespace {

const std::map<std::string, eval::Evaluator>& evaluators() {
  static const std::map<std::string, eval::Evaluator> kTable = {
      {"Constant", eval::evalConstant},
      {"Identity", eval::evalSameData},
      {"Shape", eval::evalShape},
      {"Gather", eval::evalGather},
      {"Unsqueeze", eval::evalSameData},
      {"Squeeze", eval::evalSameData},
      {"Concat", eval::evalConcat},
      {"Reshape", eval::evalSameData},
      {"Flatten", eval::evalSameData},
      {"Cast", eval::evalCast},
      {"Split", eval::evalSplit},
      {"Slice", eval::evalSlice},
      {"ConstantOfShape", eval::evalConstantOfShape},
      {"Range", eval::evalRange},
      {"Expand", eval::evalExpand},
      {"Transpose", eval::evalTranspose},
      {"Add", eval::evalArithmetic},
      {"Sub", eval::evalArithmetic},
      {"Mul", eval::evalArithmetic},
      {"Div", eval::evalArithmetic},
      {"Neg", eval::evalNeg},
      {"Equal", eval::evalEqual},
      {"Where", eval::evalWhere},
      {"Size", eval::evalSize},
      {"Less", eval::evalCompare},
      {"Greater", eval::evalCompare},
      {"LessOrEqual", eval::evalCompare},
      {"GreaterOrEqual", eval::evalCompare},
      {"And", eval::evalLogical},
      {"Or", eval::evalLogical},
      {"Xor", eval::evalLogical},
      {"Not", eval::evalLogical},
      {"Min", eval::evalMinMax},
      {"Max", eval::evalMinMax},
      {"Mod", eval::evalMod},
  };
  return kTable;
}

// Bytes of T, saturating: inferred shapes may multiply past 64 bits.
uint64_t bytesOf(const TensorType& t) {
  uint64_t n = t.dtype.bytes();
  for (int64_t d : t.shape) {
    if (d <= 0) return 0;
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n)) return UINT64_MAX;
  }
  return n;
}

uint64_t saturatingAdd(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

// The budget of a fold on its own, or of a graph: 2 x the constants' bytes + kFoldAllowance.
FoldBudget budgetFor(const std::vector<const Value*>& constants) {
  uint64_t bytes = 0;
  // A string constant's size counts its string objects (it has no byte image).
  for (const Value* c : constants) {
    const NDArray& a = *c->constant;
    bytes = saturatingAdd(bytes, static_cast<uint64_t>(a.numel()) * a.dtype().bytes());
  }
  return FoldBudget(saturatingAdd(saturatingAdd(bytes, bytes), kFoldAllowance));
}

}  // namespace

bool isConstantEvaluable(const std::string& op) { return evaluators().count(op) != 0; }

FoldBudget FoldBudget::forGraph(const Graph& graph) {
  std::vector<Value*> constants = graph.constants();
  return budgetFor({constants.begin(), constants.end()});
}

bool FoldBudget::take(uint64_t bytes) {
  if (bytes > remaining_) return false;
  remaining_ -= bytes;
  return true;
}

std::optional<std::vector<NDArray>> evaluateConstant(const Node& node) {
  std::vector<const Value*> inputs;
  for (const Value* in : node.inputs) {
    if (in && in->isConstant() && std::find(inputs.begin(), inputs.end(), in) == inputs.end()) {
      inputs.push_back(in);
    }
  }
  FoldBudget budget = budgetFor(inputs);
  return evaluateConstant(node, budget);
}

namespace {

// Output 0 of a shape computation whose elements are all constants though its inputs are not
// (Shape of a tensor whose symbolic dims it does not read: dim 2 of [1,seq,768]).
std::optional<NDArray> constantShapeValue(const Node& node) {
  const Value* out = node.outputs.size() == 1 ? node.outputs[0] : nullptr;
  if (out == nullptr || !out->symbolicValue || !out->type.isStatic()) return std::nullopt;
  for (const opdef::Dim& d : *out->symbolicValue) {
    if (!d.isConst()) return std::nullopt;
  }
  if (static_cast<int64_t>(out->symbolicValue->size()) != out->type.numel()) return std::nullopt;
  NDArray a = NDArray::empty(out->type.shape, out->type.dtype);
  for (size_t k = 0; k < out->symbolicValue->size(); ++k) {
    storeInt(a, static_cast<int64_t>(k), (*out->symbolicValue)[k].value());
  }
  return a;
}

}  // namespace

std::optional<std::vector<NDArray>> evaluateConstant(const Node& node, FoldBudget& budget) {
  if (std::optional<NDArray> sizes = constantShapeValue(node)) {
    return std::vector<NDArray>{std::move(*sizes)};
  }
  auto it = evaluators().find(node.op);
  if (it == evaluators().end()) return std::nullopt;
  for (const Value* in : node.inputs) {
    if (in && !in->type.isStatic()) return std::nullopt;  // its shape is not known yet
  }
  if (node.op != "Shape" && node.op != "Size") {  // these read only the input's static type
    for (const Value* in : node.inputs) {
      if (in && !in->isConstant()) return std::nullopt;
      if (in && !isScalarElementType(in->constant->dtype())) return std::nullopt;
    }
  }
  std::vector<TensorType> types = inferredOutputTypes(node);
  for (const TensorType& t : types) {
    if (!isScalarElementType(t.dtype) || !t.isStatic()) return std::nullopt;
  }
  uint64_t bytes = 0;
  for (const TensorType& t : types) bytes = saturatingAdd(bytes, bytesOf(t));
  if (bytes > budget.remaining()) return std::nullopt;
  eval::Outputs result = it->second(node, types);
  if (!result) return std::nullopt;
  budget.take(bytes);
  // Dropout-like optional outputs do not exist here: every output of an evaluated op is computed.
  KILN_CHECK(result->size() == types.size(), nodeLabel(node), ": evaluator returned ",
             result->size(), " outputs for ", types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    KILN_CHECK((*result)[i].dtype() == types[i].dtype && (*result)[i].shape() == types[i].shape,
               nodeLabel(node), ": evaluated output ", i, " does not match its inferred type ",
               types[i].str());
  }
  return result;
}

std::vector<Value*> replaceWithConstants(Graph& graph, Node* node, std::vector<NDArray> values) {
  KILN_CHECK(values.size() == node->outputs.size(), "one value per output of ", node->name);
  std::vector<Value*> constants;
  std::vector<std::string> names;
  for (size_t i = 0; i < node->outputs.size(); ++i) {
    Value* out = node->outputs[i];
    Value* c = graph.addConstant(graph.uniqueName(out->name), std::move(values[i]));
    graph.replaceAllUses(out, c);
    constants.push_back(c);
    names.push_back(out->name);
  }
  graph.removeNode(node);
  for (size_t i = 0; i < constants.size(); ++i) constants[i]->name = names[i];
  return constants;
}

}  // namespace kiln::ir
