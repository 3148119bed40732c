// The op registry: the builtin ops, built on first use from each family's registration function,
// and the registries compile contexts extend from it.
#include "kiln/ir/op_registry.h"

#include <algorithm>

#include "kiln/ir/node_view.h"
#include "kiln/ir/per_sample.h"
#include "kiln/opdef/shape_values.h"
#include "kiln/runtime/runtime_op.h"
#include "kiln/support/error.h"
#include "ops/register_ops.h"

namespace kiln::ir {

namespace {

std::shared_ptr<const OpRegistry> buildBuiltin() {
  auto reg = std::make_shared<OpRegistry>();
  ops::OpAdder add = [&reg](OpDef def) {
    ops::attachRunTimeShapes(def);
    reg->add(std::move(def));
  };
  ops::registerConvOps(add);
  ops::registerConvTransposeOps(add);
  ops::registerPoolOps(add);
  ops::registerMatmulOps(add);
  ops::registerAttentionOps(add);
  ops::registerCacheOps(add);
  ops::registerUnaryOps(add);
  ops::registerBinaryOps(add);
  ops::registerNormalizationOps(add);
  ops::registerReduceOps(add);
  ops::registerReshapeOps(add);
  ops::registerShapeOps(add);
  ops::registerSliceOps(add);
  ops::registerGeneratorOps(add);
  ops::registerActivationOps(add);
  ops::registerVariadicOps(add);
  ops::registerPadOps(add);
  ops::registerSplitOps(add);
  ops::registerBlockOps(add);
  ops::registerBlockedLayoutOps(add);
  ops::registerOffloadOps(add);
  ops::registerTriluOps(add);
  ops::registerRuntimeExecutedOps(add);
  ops::registerIndexOps(add);
  ops::registerQuantizeOps(add);
  ops::registerTrainingOps(add);
  ops::registerEinsumOps(add);
  ops::registerRecurrentOps(add);
  ops::registerSpectralOps(add);
  ops::registerControlFlowOps(add);
  ops::registerSequenceOps(add);
  ops::registerStringOps(add);
  return reg;
}

std::string countRange(int lo, int hi) {
  if (lo == hi) return strCat("exactly ", lo);
  if (hi == kVariadicInputs) return strCat("at least ", lo);
  return strCat(lo, " to ", hi);
}

}  // namespace

const char* opClassName(OpClass c) {
  switch (c) {
    case OpClass::kElementwise:
      return "elementwise";
    case OpClass::kBroadcast:
      return "broadcast";
    case OpClass::kInjective:
      return "injective";
    case OpClass::kReduction:
      return "reduction";
    case OpClass::kComplex:
      return "complex";
    case OpClass::kOpaque:
      return "opaque";
  }
  return "unknown";
}

const std::shared_ptr<const OpRegistry>& OpRegistry::builtin() {
  // Never destroyed: lookups may happen during static destruction.
  static const auto* kBuiltin = new std::shared_ptr<const OpRegistry>(buildBuiltin());
  return *kBuiltin;
}

void OpRegistry::add(OpDef def) {
  if (ops_.count(def.name)) throw Error(strCat("op '", def.name, "' is already registered"));
  KILN_CHECK(def.inferTypes, "op '", def.name, "' has no type inference");
  std::string name = def.name;
  ops_.emplace(std::move(name), std::make_shared<const OpDef>(std::move(def)));
}

const OpDef* OpRegistry::find(const std::string& name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> names;
  names.reserve(ops_.size());
  for (const auto& [name, def] : ops_) names.push_back(name);
  return names;
}

const OpDef* findOp(const std::string& name) { return OpRegistry::builtin()->find(name); }

std::vector<std::string> registeredOps() { return OpRegistry::builtin()->names(); }

const OpRegistry& opsOf(const Node& node) {
  return node.graph != nullptr ? node.graph->ops() : *OpRegistry::builtin();
}

std::string nodeLabel(const Node& node) { return strCat(node.op, " '", node.name, "'"); }

bool computesSizesOnly(const Node& node) {
  if (node.graph == nullptr || node.graph->dimBounds.empty() || node.outputs.size() != 1) {
    return false;
  }
  const Value* out = node.outputs[0];
  if (out == nullptr || !out->symbolicValue || !out->type.isStatic()) return false;
  const opdef::DimList& sizes = *out->symbolicValue;
  if (static_cast<int64_t>(sizes.size()) != out->type.numel()) return false;
  const opdef::DimBounds& bounds = node.graph->dimBounds;
  return std::all_of(sizes.begin(), sizes.end(),
                     [&bounds](const opdef::Dim& d) { return d.range(bounds).has_value(); });
}

bool runsInRuntime(const Node& node) {
  if (computesSizesOnly(node)) return false;
  if (hasRunTimeShapes(node)) return true;
  const OpDef* def = opsOf(node).find(node.op);
  return def != nullptr && def->runtimeForm && def->runtimeForm(node);
}

namespace {

bool takesSymbolicSizes(const OpDef& def) {
  return def.symbolicKernel || def.opClass == OpClass::kElementwise;
}

// Whether V's size is known when NODE's kernel runs: static, or (SYMBOLIC) placed at its bounds.
bool sizedForKernel(const Value* v, bool symbolic, const opdef::DimBounds& bounds) {
  if (v == nullptr || v->type.isStatic()) return true;
  return symbolic && v->type.capacity(bounds).has_value();
}

// Whether shape input V's values are known when the kernel runs: a constant, or (SYMBOLIC)
// sizes in bounded symbols.
bool valuesForKernel(const Value* v, bool symbolic, const opdef::DimBounds& bounds) {
  if (v == nullptr || v->isConstant()) return true;
  if (!symbolic || !v->symbolicValue) return false;
  return std::all_of(v->symbolicValue->begin(), v->symbolicValue->end(),
                     [&bounds](const opdef::Dim& d) { return d.range(bounds).has_value(); });
}

}  // namespace

bool hasRunTimeShapes(const Node& node) {
  const OpDef* def = opsOf(node).find(node.op);
  static const opdef::DimBounds kNoBounds;
  const opdef::DimBounds& bounds = node.graph != nullptr ? node.graph->dimBounds : kNoBounds;
  bool symbolic = def != nullptr && !bounds.empty() &&
                  (takesSymbolicSizes(*def) || symbolicBatch(node).has_value());
  for (const Value* v : node.inputs) {
    if (!sizedForKernel(v, symbolic, bounds)) return true;
  }
  for (const Value* v : node.outputs) {
    if (!sizedForKernel(v, symbolic, bounds)) return true;
  }
  if (def == nullptr) return false;
  for (int i : def->shapeInputs) {
    auto k = static_cast<size_t>(i);
    if (k < node.inputs.size() && !valuesForKernel(node.inputs[k], symbolic, bounds)) return true;
  }
  return false;
}

namespace {

// An elementwise op's outputs are its input's shape: copied, with its symbolic sizes.
bool computesSymbolicSizes(const OpDef& def) {
  return def.symbolicSizes || def.opClass == OpClass::kElementwise;
}

// Whether NODE's inputs are sized in the graph's symbols (each bounded, some not static), or a
// shape input's values are.
bool hasSymbolicSizes(const Node& node, const OpDef& def) {
  bool symbolic = false;
  for (const Value* v : node.inputs) {
    if (v == nullptr || v->type.isStatic()) continue;
    if (!v->type.isBounded()) return false;
    symbolic = true;
  }
  for (int i : def.shapeInputs) {
    auto k = static_cast<size_t>(i);
    const Value* v = k < node.inputs.size() ? node.inputs[k] : nullptr;
    symbolic = symbolic || (v != nullptr && v->symbolicValue.has_value());
  }
  return symbolic;
}

// Output 0's elements as sizes in the graph's symbols, when NODE computes on shapes that have
// them (src/opdef/shape_values.h).
void followShapeValues(Node& node) {
  Value* out = node.outputs.empty() ? nullptr : node.outputs[0];
  if (out == nullptr) return;
  out->symbolicValue.reset();
  bool symbolic = false;
  for (const Value* v : node.inputs) {
    symbolic = symbolic || (v && (v->symbolicValue || v->type.hasSymbolicDims()));
  }
  DataType t = out->type.dtype;
  bool integer = t.lanes == 1 && (t.code == kDLInt || t.code == kDLUInt || t.code == kDLBool);
  if (!symbolic || !integer || !out->type.isStatic() || out->type.rank() > 1) return;
  out->symbolicValue = opdef::shapeValues(NodeView(node));
}

// An op that needs static shapes, given a tensor sized at run time, says so.
void requireStaticInputs(const Node& node) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Value* v = node.inputs[i];
    if (v == nullptr || v->type.isStatic()) continue;
    std::string ops;
    for (const std::string& name : runtime::runtimeOpNames()) {
      const OpDef* def = opsOf(node).find(name);
      if (def && def->inferRunTime) ops += (ops.empty() ? "" : ", ") + name;
    }
    const OpDef* own = opsOf(node).find(node.op);
    std::string batch;
    for (int k : own != nullptr ? own->sampleInputs : std::vector<int>{}) {
      batch += strCat(batch.empty() ? ", or for a batch (dim 0 of input " : " or ", k);
    }
    if (!batch.empty()) batch += ") sized in bounded symbols with the other dims static";
    throw Error(strCat(nodeLabel(node), ": input ", i, " '", v->name, "' is ", v->type.str(),
                       ", sized only at run time; kiln compiles '", node.op,
                       "' for static shapes only", batch,
                       " (ops that take tensors sized at run time: ", ops, ")"));
  }
}

// An op whose output shapes depend on an input's values (shapeInputs), compiled only with that
// input constant, given a computed one, says so.
void requireConstantShapeInputs(const Node& node, const OpDef& def) {
  for (int i : def.shapeInputs) {
    auto k = static_cast<size_t>(i);
    const Value* v = k < node.inputs.size() ? node.inputs[k] : nullptr;
    if (v == nullptr || v->isConstant()) continue;
    std::string from = v->producer ? strCat("computed by ", nodeLabel(*v->producer))
                                   : std::string("a graph input");
    throw Error(strCat(nodeLabel(node), ": input ", k, " '", v->name,
                       "' decides the output shape and is ", from, "; kiln compiles '", node.op,
                       "' only with a constant there"));
  }
}

// "A, B, ...": the ops of NODE's registry whose FLAG is set, for messages.
std::string opsWith(const Node& node, bool OpDef::*flag) {
  std::string ops;
  for (const std::string& name : opsOf(node).names()) {
    if (opsOf(node).find(name)->*flag) ops += (ops.empty() ? "" : ", ") + name;
  }
  return ops;
}

// An op that takes no string tensors, given one, says so.
void requireNonStringInputs(const Node& node, const OpDef& def) {
  if (def.stringValues) return;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Value* v = node.inputs[i];
    if (v == nullptr || !v->type.dtype.isString()) continue;
    throw Error(strCat(nodeLabel(node), ": input ", i, " '", v->name, "' is ", v->type.str(),
                       "; kiln's '", node.op, "' takes no strings (ops that take strings: ",
                       opsWith(node, &OpDef::stringValues), ")"));
  }
}

// An op that takes tensors only, given a sequence or optional, says so.
void requireTensorInputs(const Node& node, const OpDef& def) {
  requireNonStringInputs(node, def);
  if (def.listValues) return;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Value* v = node.inputs[i];
    if (v == nullptr || v->type.isTensor()) continue;
    throw Error(strCat(nodeLabel(node), ": input ", i, " '", v->name, "' is ", v->type.str(), "; '",
                       node.op, "' takes tensors only (ops that take sequences and optionals: ",
                       opsWith(node, &OpDef::listValues), ")"));
  }
}

}  // namespace

void inferTypes(Node& node) {
  const OpDef* def = opsOf(node).find(node.op);
  std::string label = nodeLabel(node);
  if (!def) throw Error(strCat(label, ": '", node.op, "' is not a known op"));
  auto numInputs = static_cast<int64_t>(node.inputs.size());
  if (numInputs < def->minInputs || numInputs > def->maxInputs) {
    throw Error(strCat(label, ": has ", numInputs, " inputs; expected ",
                       countRange(def->minInputs, def->maxInputs)));
  }
  for (int i = 0; i < def->minInputs; ++i) {
    if (!node.inputs[static_cast<size_t>(i)]) {
      throw Error(strCat(label, ": input ", i, " is required but was omitted"));
    }
  }
  auto numOutputs = static_cast<int64_t>(node.outputs.size());
  if (numOutputs < 1 || numOutputs > def->numOutputs) {
    throw Error(
        strCat(label, ": has ", numOutputs, " outputs; expected ", countRange(1, def->numOutputs)));
  }
  try {
    requireTensorInputs(node, *def);
    std::optional<opdef::Dim> batch;
    if (computesSymbolicSizes(*def) && hasSymbolicSizes(node, *def)) {
      def->inferTypes(node);  // its rule computes with the symbols
    } else if ((batch = symbolicBatch(node))) {
      inferPerSample(node, *def, *batch);
    } else if (hasRunTimeShapes(node) && def->inferRunTime) {
      def->inferRunTime(node);
    } else {
      requireStaticInputs(node);
      requireConstantShapeInputs(node, *def);
      def->inferTypes(node);
    }
    if (!computesSymbolicSizes(*def) && !batch) {
      for (Value* out : node.outputs) {
        if (out) out->type.symbolicDims.clear();
      }
    }
    followShapeValues(node);
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.rfind(label, 0) == 0) throw;
    throw Error(strCat(label, ": ", what));  // e.g. an attribute getter's message
  }
}

std::vector<TensorType> inferredOutputTypes(const Node& node) {
  Node scratch;
  scratch.op = node.op;
  scratch.name = node.name;
  scratch.graph = node.graph;
  scratch.inputs = node.inputs;
  scratch.attrs = node.attrs;
  std::vector<Value> outs(node.outputs.size());
  for (Value& v : outs) scratch.outputs.push_back(&v);
  inferTypes(scratch);
  std::vector<TensorType> types;
  types.reserve(outs.size());
  for (const Value& v : outs) types.push_back(v.type);
  return types;
}

}  // namespace kiln::ir
