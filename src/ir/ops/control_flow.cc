// Type inference of If, Loop and Scan from their bodies' types, and the types their bodies'
// formal inputs take (kiln/ir/control_flow.h).
#include "kiln/ir/control_flow.h"

#include <algorithm>

#include "infer_util.h"
#include "register_ops.h"

namespace kiln::ir {
namespace {

constexpr int64_t kUnknown = runtime::kDynamicDim;

using ops::fail;

bool isScan8(const std::string& op, int64_t opset) { return op == "Scan" && opset < 9; }

TensorType withoutAxis(const TensorType& t, int64_t axis) {
  TensorType out = t;
  out.shape.erase(out.shape.begin() + axis);
  return out;
}

TensorType withAxis(const TensorType& t, int64_t axis, int64_t size) {
  TensorType out = t;
  out.shape.insert(out.shape.begin() + axis, size);
  return out;
}

int64_t numScanInputs(const std::string& label, const Attrs& attrs) {
  int64_t m = attrs.getInt("num_scan_inputs");
  if (m < 1) throw Error(strCat(label, ": num_scan_inputs is ", m, "; expected at least 1"));
  return m;
}

// The number of loop-carried values (Loop) or states (Scan) among FORMAL body inputs.
size_t carriedCount(const std::string& label, const std::string& op, const Attrs& attrs,
                    size_t formal) {
  if (op == "Loop") return formal - 2;
  auto m = static_cast<size_t>(numScanInputs(label, attrs));
  if (m > formal) {
    throw Error(strCat(label, ": num_scan_inputs is ", m, " but the body has ", formal, " inputs"));
  }
  return formal - m;
}

// The scan axis of scanned input J (after the batch axis for Scan-8) of a tensor of RANK.
int64_t scanAxis(const Node& node, const std::string& key, size_t j, int64_t rank) {
  std::vector<int64_t> axes = node.attrs.getInts(key, {});
  if (axes.empty()) return 0;
  if (j >= axes.size()) fail(node, key, " has ", axes.size(), " entries; expected one per value");
  return ops::normalizeAxis(node, axes[j], rank, key.c_str());
}

const Graph& body(const Node& node, const char* attr) { return node.attrs.getGraph(attr); }

size_t capturedCount(const Node& node) {
  return static_cast<size_t>(node.attrs.getInt("kiln.captured", 0));
}

// BODY's inputs: FORMAL formal ones typed as expected, then the node's captured values.
void checkBodyInputs(const Node& node, const char* attr, const std::vector<TensorType>& formal) {
  const Graph& g = body(node, attr);
  size_t captured = capturedCount(node);
  if (g.inputs().size() != formal.size() + captured) {
    fail(node, "body '", attr, "' has ", g.inputs().size(), " inputs; expected ", formal.size(),
         " formal ones and ", captured, " captured values");
  }
  for (size_t i = 0; i < formal.size(); ++i) {
    const TensorType& t = g.inputs()[i]->type;
    if (!typeFits(t, formal[i])) {
      fail(node, "input ", i, " '", g.inputs()[i]->name, "' of body '", attr, "' is ", t.str(),
           "; the node gives it ", formal[i].str());
    }
  }
  size_t first = formalInputCount(node);
  for (size_t c = 0; c < captured; ++c) {
    const Value* outer = node.inputs[first + c];
    const Value* inner = g.inputs()[formal.size() + c];
    if (outer == nullptr || outer->type != inner->type) {
      fail(node, "captured value ", c, " '", inner->name, "' of body '", attr, "' is ",
           inner->type.str(), "; the node gives it ", outer ? outer->type.str() : "nothing");
    }
  }
}

std::vector<const TensorType*> formalInputTypes(const Node& node) {
  std::vector<const TensorType*> types;
  for (size_t i = 0; i < formalInputCount(node); ++i) {
    types.push_back(node.inputs[i] ? &node.inputs[i]->type : nullptr);
  }
  return types;
}

std::vector<TensorType> bodyOutputTypes(const Graph& g) {
  std::vector<TensorType> types;
  for (const Value* v : g.outputs()) types.push_back(v->type);
  return types;
}

void checkOutputCount(const Node& node, const char* attr, size_t expected) {
  size_t n = body(node, attr).outputs().size();
  if (n != expected) {
    fail(node, "body '", attr, "' has ", n, " outputs; expected ", expected, " (for the node's ",
         node.outputs.size(), " outputs)");
  }
}

void requireSingle(const Node& node, size_t i, DataType dtype, const char* what) {
  if (!ops::hasInput(node, i)) return;
  const TensorType& t = node.inputs[i]->type;
  if (t.dtype != dtype || t.rank() > 1 || (t.rank() == 1 && t.shape[0] != 1)) {
    fail(node, what, " (input ", i, ") is ", t.str(), "; expected one ", dtype.str(), " value");
  }
}

// Both branches' output I, in one type: dims that differ are known only at run time.
void inferIf(Node& node) {
  requireSingle(node, 0, DataType::boolean(), "cond");
  for (const char* attr : {"then_branch", "else_branch"}) {
    checkBodyInputs(node, attr, {});
    checkOutputCount(node, attr, node.outputs.size());
  }
  const Graph& a = body(node, "then_branch");
  const Graph& b = body(node, "else_branch");
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const TensorType& x = a.outputs()[i]->type;
    const TensorType& y = b.outputs()[i]->type;
    std::optional<TensorType> out = joinTypes(x, y);
    if (!out) {
      fail(node, "output ", i, " is ", x.str(), " in then_branch but ", y.str(),
           " in else_branch; kiln needs one kind, dtype and rank");
    }
    ops::setOutput(node, i, *out);
  }
}

// Scan outputs are stacked as bytes: strings are not.
void refuseStringScanOutput(const Node& node, size_t k, const TensorType& t) {
  if (t.dtype.isString()) {
    fail(node, "scan output ", k, " of its body is ", t.str(),
         "; kiln stacks numeric tensors only");
  }
}

// The carried values after the loop have their body input's type; each scan output stacks one
// value per iteration, so its leading dim is known only at run time.
void inferLoop(Node& node) {
  requireSingle(node, 0, DataType::int64(), "M");
  requireSingle(node, 1, DataType::boolean(), "cond");
  std::vector<TensorType> formal =
      bodyInputTypes(nodeLabel(node), "Loop", node.attrs, node.graph->opsetVersion,
                     formalInputTypes(node), "body");
  checkBodyInputs(node, "body", formal);
  const Graph& g = body(node, "body");
  for (size_t i = 2; i < formal.size(); ++i) formal[i] = g.inputs()[i]->type;
  size_t carried = formal.size() - 2;
  checkOutputCount(node, "body", 1 + node.outputs.size());
  if (node.outputs.size() < carried) {
    fail(node, "has ", node.outputs.size(), " outputs for ", carried, " loop-carried values");
  }
  std::vector<TensorType> outs = bodyOutputTypes(g);
  if (!typeFits({DataType::boolean(), {}}, outs[0]) &&
      !typeFits({DataType::boolean(), {1}}, outs[0])) {
    fail(node, "body output 0 (the condition) is ", outs[0].str(), "; expected bool");
  }
  for (size_t j = 0; j < carried; ++j) {
    // An optional may leave the body as the value it holds (the optional then holds it).
    const TensorType& in = formal[2 + j];
    bool fits = typeFits(in, outs[1 + j]) ||
                (runtime::isOptional(in.kind) && typeFits(in.element(), outs[1 + j]));
    if (!fits) {
      fail(node, "loop-carried value ", j, " enters the body as ", in.str(), " but leaves it as ",
           outs[1 + j].str());
    }
    // The final value is typed as the body leaves it (as ONNX does): after no iteration it is the
    // initial value, which must then hold one (the runtime checks).
    bool unwrapped = runtime::isOptional(in.kind) && !runtime::isOptional(outs[1 + j].kind);
    ops::setOutput(node, j,
                   unwrapped ? joinTypes(in.element(), outs[1 + j]).value_or(outs[1 + j]) : in);
  }
  for (size_t k = carried; k < node.outputs.size(); ++k) {
    refuseStringScanOutput(node, k - carried, outs[1 + k]);
    ops::setOutput(node, k, withAxis(outs[1 + k], 0, kUnknown));
  }
}

void inferScan(Node& node) {
  bool scan8 = isScan8("Scan", node.graph->opsetVersion);
  std::vector<TensorType> formal =
      bodyInputTypes(nodeLabel(node), "Scan", node.attrs, node.graph->opsetVersion,
                     formalInputTypes(node), "body");
  size_t states = carriedCount(nodeLabel(node), "Scan", node.attrs, formal.size());
  checkBodyInputs(node, "body", formal);
  const Graph& g = body(node, "body");
  for (size_t j = 0; j < states; ++j) formal[j] = g.inputs()[j]->type;
  checkOutputCount(node, "body", node.outputs.size());
  std::vector<TensorType> outs = bodyOutputTypes(g);
  if (outs.size() < states) fail(node, "has fewer outputs than its ", states, " states");
  // The number of iterations: the first scanned input's length along its scan axis.
  size_t first = (scan8 ? 1 : 0) + states;
  const TensorType& x = ops::inputType(node, first, "the first scanned input");
  int64_t length =
      scan8 ? (x.rank() > 1 ? x.shape[1] : kUnknown)
            : x.shape[static_cast<size_t>(scanAxis(node, "scan_input_axes", 0, x.rank()))];
  int64_t batch = scan8 ? x.shape.at(0) : 0;
  for (size_t j = 0; j < states; ++j) {
    if (!typeFits(formal[j], outs[j])) {
      fail(node, "state ", j, " enters the body as ", formal[j].str(), " but leaves it as ",
           outs[j].str());
    }
    ops::setOutput(node, j, scan8 ? withAxis(formal[j], 0, batch) : formal[j]);
  }
  for (size_t k = states; k < outs.size(); ++k) {
    const TensorType& y = outs[k];
    refuseStringScanOutput(node, k - states, y);
    if (scan8) {
      ops::setOutput(node, k, withAxis(withAxis(y, 0, length), 0, batch));
      continue;
    }
    int64_t axis = scanAxis(node, "scan_output_axes", k - states, y.rank() + 1);
    ops::setOutput(node, k, withAxis(y, axis, length));
  }
}

OpDef controlFlowOp(const char* name, int minInputs, int since, void (*infer)(Node&)) {
  return {.name = name,
          .opClass = OpClass::kOpaque,
          .minInputs = minInputs,
          .maxInputs = kVariadicInputs,
          .numOutputs = std::numeric_limits<int>::max(),
          .sinceVersion = since,
          .listValues = true,
          .inferRunTime = infer,
          .inferTypes = infer};
}

}  // namespace

bool hasSubgraphs(const Node& node) { return !node.attrs.graphNames().empty(); }

std::vector<std::string> bodyAttributes(const std::string& op) {
  if (op == "If") return {"else_branch", "then_branch"};
  if (op == "Loop" || op == "Scan") return {"body"};
  return {};
}

size_t formalInputCount(const Node& node) {
  auto extra = static_cast<size_t>(node.attrs.getInt("kiln.captured", 0) +
                                   node.attrs.getInt("kiln.hoisted", 0));
  KILN_CHECK(extra <= node.inputs.size(), nodeLabel(node), " has fewer inputs than its ", extra,
             " captured and hoisted ones");
  return node.inputs.size() - extra;
}

std::vector<TensorType> bodyInputTypes(const std::string& label, const std::string& op,
                                       const Attrs& attrs, int64_t opset,
                                       const std::vector<const TensorType*>& inputs,
                                       const std::string& attr) {
  auto required = [&](size_t i) -> const TensorType& {
    if (i >= inputs.size() || inputs[i] == nullptr) {
      throw Error(strCat(label, ": input ", i, " is required"));
    }
    return *inputs[i];
  };
  std::vector<std::string> known = bodyAttributes(op);
  if (std::find(known.begin(), known.end(), attr) == known.end()) {
    std::string names;
    for (const std::string& k : known) names += (names.empty() ? "'" : ", '") + k + "'";
    throw Error(strCat(label, ": has a graph attribute '", attr, "'; ", op,
                       known.empty() ? " takes none" : strCat(" takes ", names)));
  }
  if (op == "If") return {};
  if (op == "Loop") {
    std::vector<TensorType> types = {{DataType::int64(), {}}, {DataType::boolean(), {}}};
    for (size_t i = 2; i < inputs.size(); ++i) types.push_back(required(i));
    return types;
  }
  bool scan8 = isScan8(op, opset);
  size_t first = scan8 ? 1 : 0;
  if (inputs.size() < first) throw Error(strCat(label, ": has no inputs"));
  size_t total = inputs.size() - first;
  auto m = static_cast<size_t>(numScanInputs(label, attrs));
  if (m > total) {
    throw Error(strCat(label, ": num_scan_inputs is ", m, " but the node has ", total,
                       " states and scanned inputs"));
  }
  Node probe;  // for axis normalisation's messages
  probe.op = op;
  probe.name = label;
  probe.attrs = attrs;
  std::vector<TensorType> types;
  for (size_t j = 0; j < total; ++j) {
    const TensorType& t = required(first + j);
    if (!t.isTensor()) {
      throw Error(strCat(label, ": input ", first + j, " is ", t.str(), "; Scan takes tensors"));
    }
    bool scanned = j >= total - m;
    int64_t drop = scan8 ? (scanned ? 2 : 1) : (scanned ? 1 : 0);
    if (t.rank() < drop) {
      throw Error(strCat(label, ": input ", first + j, " is ", t.str(), "; expected rank ", drop,
                         " or more"));
    }
    TensorType u = t;
    if (scan8) {
      u = withoutAxis(u, 0);               // the batch axis
      if (scanned) u = withoutAxis(u, 0);  // then the sequence axis
    } else if (scanned) {
      u = withoutAxis(u, scanAxis(probe, "scan_input_axes", j - (total - m), t.rank()));
    }
    types.push_back(u);
  }
  return types;
}

std::vector<TensorType> widenCarried(const std::string& label, const std::string& op,
                                     const Attrs& attrs, const std::vector<TensorType>& formal,
                                     const std::vector<TensorType>& bodyOutputs) {
  if (op != "Loop" && op != "Scan") return formal;
  size_t in = op == "Loop" ? 2 : 0, out = op == "Loop" ? 1 : 0;
  size_t carried = carriedCount(label, op, attrs, formal.size());
  std::vector<TensorType> widened = formal;
  for (size_t j = 0; j < carried && out + j < bodyOutputs.size(); ++j) {
    TensorType& t = widened[in + j];
    const TensorType& next = bodyOutputs[out + j];
    std::optional<TensorType> joined = joinTypes(t, next);
    if (!joined && runtime::isOptional(t.kind) && !runtime::isOptional(next.kind)) {
      // An optional that leaves the body as the value it holds stays an optional.
      if (std::optional<TensorType> held = joinTypes(t.element(), next))
        joined = TensorType::optionalOf(*held);
    }
    if (!joined) {
      throw Error(strCat(label, ": loop-carried value ", j, " enters the body as ", t.str(),
                         " but leaves it as ", next.str(),
                         "; kiln needs one kind, dtype and rank"));
    }
    t = *joined;
  }
  return widened;
}

namespace ops {

void registerControlFlowOps(const OpAdder& add) {
  add(controlFlowOp("If", 1, 1, inferIf));
  add(controlFlowOp("Loop", 0, 1, inferLoop));
  add(controlFlowOp("Scan", 0, 8, inferScan));  // opset 8's sequence_lens may be omitted
}

}  // namespace ops
}  // namespace kiln::ir
