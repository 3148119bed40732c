// Type inference of the sequence and optional ops (ONNX's sequence_type and optional_type values),
// which the runtime executes: SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt,
// SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence, Optional,
// OptionalHasElement and OptionalGetElement.
#include <algorithm>

#include "infer_util.h"
#include "kiln/ir/onnx_dtype.h"
#include "kiln/ir/parser.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

const TensorType& sequenceInput(const Node& node, size_t i, const char* what) {
  const TensorType& t = inputType(node, i, what);
  if (t.kind != ValueKind::kSequence) fail(node, what, " is ", t.str(), "; expected a sequence");
  return t;
}

const TensorType& tensorInput(const Node& node, size_t i, const char* what) {
  const TensorType& t = inputType(node, i, what);
  if (!t.isTensor()) fail(node, what, " is ", t.str(), "; expected a tensor");
  return t;
}

// An omitted or scalar int32/int64 input (a position in a sequence).
void requirePosition(const Node& node, size_t i) {
  if (!hasInput(node, i)) return;
  const TensorType& t = tensorInput(node, i, "position");
  requireIndexType(node, i);
  if (t.rank() > 1 || (t.rank() == 1 && t.shape[0] != 1)) {
    fail(node, "position is ", t.str(), "; expected a scalar");
  }
}

// The tensors of a sequence whose elements have types A and B.
TensorType joinElements(const Node& node, const TensorType& a, const TensorType& b) {
  std::optional<TensorType> joined = joinTypes(a, b);
  if (!joined) fail(node, "a sequence of ", a.str(), " cannot hold ", b.str());
  return *joined;
}

void inferSequenceEmpty(Node& node) {
  DataType dtype = numericTypeFromOnnx(node.attrs.getInt("dtype", 1));
  TensorType t{dtype, {}};
  t.unranked = true;
  setOutput(node, 0, TensorType::sequenceOf(t));
}

void inferSequenceConstruct(Node& node) {
  TensorType seq = TensorType::sequenceOf(tensorInput(node, 0, "input 0"));
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    const TensorType& t = tensorInput(node, i, "an input");
    seq = joinElements(node, seq, TensorType::sequenceOf(t));
  }
  setOutput(node, 0, seq);
}

void inferSequenceInsert(Node& node) {
  const TensorType& seq = sequenceInput(node, 0, "input_sequence");
  const TensorType& t = tensorInput(node, 1, "tensor");
  requirePosition(node, 2);
  setOutput(node, 0, joinElements(node, seq, TensorType::sequenceOf(t)));
}

void inferSequenceAt(Node& node) {
  const TensorType& seq = sequenceInput(node, 0, "input_sequence");
  if (!hasInput(node, 1)) fail(node, "position is required");
  requirePosition(node, 1);
  if (seq.unranked) {
    fail(node, "the tensors of ", node.inputs[0]->name, " (", seq.str(),
         ") have no known rank; kiln needs the rank of a tensor taken from a sequence");
  }
  setOutput(node, 0, seq.element());
}

void inferSequenceErase(Node& node) {
  const TensorType& seq = sequenceInput(node, 0, "input_sequence");
  requirePosition(node, 1);
  setOutput(node, 0, seq);
}

void inferSequenceLength(Node& node) {
  sequenceInput(node, 0, "input_sequence");
  setOutput(node, 0, {DataType::int64(), {}});
}

// The pieces' size along the axis: SPLIT's when it is a constant that cuts DIM evenly, else
// known only at run time.
int64_t pieceSize(const Node& node, int64_t dim) {
  std::optional<std::vector<int64_t>> split = constantInts(node.inputs[1]);
  if (!split || split->empty()) return runtime::kDynamicDim;
  const TensorType& s = node.inputs[1]->type;
  if (s.rank() == 0) {
    int64_t n = split->front();
    if (n <= 0) fail(node, "split is ", n, "; expected > 0");
    return dim != runtime::kDynamicDim && dim % n == 0 ? n : runtime::kDynamicDim;
  }
  int64_t total = 0;
  for (int64_t n : *split) {
    if (n < 0) fail(node, "split ", listStr(*split), " has a negative entry");
    total += n;
  }
  if (dim != runtime::kDynamicDim && total != dim) {
    fail(node, "split ", listStr(*split), " sums to ", total, "; the axis has ", dim);
  }
  bool even =
      std::all_of(split->begin(), split->end(), [&](int64_t n) { return n == split->front(); });
  return even ? split->front() : runtime::kDynamicDim;
}

void inferSplitToSequence(Node& node) {
  const TensorType& x = tensorInput(node, 0, "input");
  requireRankAtLeast(node, 0, 1, "SplitToSequence splits along an axis");
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis", 0), x.rank()));
  TensorType piece = x;
  if (hasInput(node, 1)) {
    const TensorType& s = tensorInput(node, 1, "split");
    requireIndexType(node, 1);
    if (s.rank() > 1) fail(node, "split is ", s.str(), "; expected a scalar or a 1-D tensor");
    piece.shape[axis] = pieceSize(node, x.shape[axis]);
  } else if (node.attrs.getInt("keepdims", 1) != 0) {
    piece.shape[axis] = 1;
  } else {
    piece.shape.erase(piece.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  }
  setOutput(node, 0, TensorType::sequenceOf(piece));
}

void inferConcatFromSequence(Node& node) {
  const TensorType& seq = sequenceInput(node, 0, "input_sequence");
  if (seq.unranked) {
    fail(node, "the tensors of ", node.inputs[0]->name, " (", seq.str(),
         ") have no known rank; kiln needs the rank of the concatenation");
  }
  bool newAxis = node.attrs.getInt("new_axis", 0) != 0;
  TensorType out = seq.element();
  int64_t rank = out.rank() + (newAxis ? 1 : 0);
  if (rank == 0) fail(node, "cannot concatenate scalars without new_axis=1");
  auto axis = static_cast<size_t>(normalizeAxis(node, node.attrs.getInt("axis"), rank));
  if (newAxis) {
    out.shape.insert(out.shape.begin() + static_cast<std::ptrdiff_t>(axis), runtime::kDynamicDim);
  } else {
    out.shape[axis] = runtime::kDynamicDim;
  }
  setOutput(node, 0, out);
}

void inferOptional(Node& node) {
  if (hasInput(node, 0)) {
    const TensorType& t = inputType(node, 0, "input");
    if (t.kind != ValueKind::kTensor && t.kind != ValueKind::kSequence) {
      fail(node, "input is ", t.str(), "; expected a tensor or a sequence");
    }
    setOutput(node, 0, TensorType::optionalOf(t));
    return;
  }
  if (!node.attrs.has("type")) fail(node, "has no input and no 'type' attribute");
  // The importer writes the type in kiln's text form; its tensors may be unranked.
  setOutput(node, 0, parseType("opt(" + node.attrs.getString("type", "") + ")"));
}

void inferOptionalHasElement(Node& node) {
  if (hasInput(node, 0)) inputType(node, 0, "input");
  setOutput(node, 0, {DataType::boolean(), {}});
}

// From opset 18 a tensor or sequence is accepted too, and passed through.
void inferOptionalGetElement(Node& node) {
  const TensorType& t = inputType(node, 0, "input");
  setOutput(node, 0, runtime::isOptional(t.kind) ? t.element() : t);
}

OpDef sequenceOp(const char* name, int minInputs, int maxInputs, int since, void (*infer)(Node&)) {
  return {.name = name,
          .minInputs = minInputs,
          .maxInputs = maxInputs,
          .sinceVersion = since,
          .listValues = true,
          .inferRunTime = infer,
          .runtimeForm = [](const Node&) { return true; },
          .inferTypes = infer};
}

}  // namespace

void registerSequenceOps(const OpAdder& add) {
  add(sequenceOp("SequenceEmpty", 0, 0, 11, inferSequenceEmpty));
  add(sequenceOp("SequenceConstruct", 1, kVariadicInputs, 11, inferSequenceConstruct));
  add(sequenceOp("SequenceInsert", 2, 3, 11, inferSequenceInsert));
  add(sequenceOp("SequenceAt", 2, 2, 11, inferSequenceAt));
  add(sequenceOp("SequenceErase", 1, 2, 11, inferSequenceErase));
  add(sequenceOp("SequenceLength", 1, 1, 11, inferSequenceLength));
  add(sequenceOp("SplitToSequence", 1, 2, 11, inferSplitToSequence));
  add(sequenceOp("ConcatFromSequence", 1, 1, 11, inferConcatFromSequence));
  add(sequenceOp("Optional", 0, 1, 15, inferOptional));
  add(sequenceOp("OptionalHasElement", 0, 1, 15, inferOptionalHasElement));
  add(sequenceOp("OptionalGetElement", 1, 1, 15, inferOptionalGetElement));
}

}  // namespace kiln::ir::ops
