// The output types of nodes whose shapes are known only at run time (a shape input that is not a
// constant, or an input sized at run time), for the ops the runtime executes: dtype and rank now,
// the dims the runtime computes. attachRunTimeShapes adds them to the ops' definitions.
#include <functional>
#include <map>
#include <set>

#include "infer_util.h"
#include "kiln/runtime/runtime_op.h"
#include "register_ops.h"

namespace kiln::ir::ops {
namespace {

constexpr int64_t kUnknown = runtime::kDynamicDim;

// The length of 1-D input I (a list of dims or axes), which must be known now.
int64_t listLength(const Node& node, size_t i, const char* what) {
  const TensorType& t = inputType(node, i, what);
  if (t.rank() != 1) fail(node, what, " (input ", i, ") is ", t.str(), "; expected a 1-D tensor");
  if (t.shape[0] == kUnknown) {
    fail(node, what, " (input ", i, ") is ", t.str(),
         ": its length is known only at run time, so the output rank is unknown; kiln needs it");
  }
  return t.shape[0];
}

// An ints attribute's length, or input I's.
int64_t attrOrListLength(const Node& node, const char* attr, size_t i) {
  if (node.attrs.has(attr)) return static_cast<int64_t>(node.attrs.getInts(attr, {}).size());
  return hasInput(node, i) ? listLength(node, i, attr) : -1;
}

void unknownDims(Node& node, size_t out, DataType dtype, int64_t rank) {
  setOutput(node, out, {dtype, Shape(static_cast<size_t>(rank), kUnknown)});
}

void sameRank(Node& node) {
  const TensorType& x = inputType(node, 0);
  for (size_t i = 0; i < node.outputs.size(); ++i) unknownDims(node, i, x.dtype, x.rank());
}

void expandRank(Node& node) {
  const TensorType& x = inputType(node, 0);
  unknownDims(node, 0, x.dtype, std::max<int64_t>(x.rank(), listLength(node, 1, "shape")));
}

void constantOfShapeRank(Node& node) {
  DataType dtype = DataType::float32();
  if (node.attrs.has("value")) dtype = node.attrs.getTensor("value").dtype();
  unknownDims(node, 0, dtype, listLength(node, 0, "input"));
}

void reduceRank(Node& node) {
  const TensorType& x = inputType(node, 0);
  bool keepDims = node.attrs.getInt("keepdims", 1) != 0;
  int64_t n = attrOrListLength(node, "axes", 1);
  bool noop = node.attrs.getInt("noop_with_empty_axes", 0) != 0;
  int64_t rank = x.rank();
  if (!keepDims) rank = n > 0 ? rank - n : (noop ? rank : 0);
  unknownDims(node, 0, x.dtype, rank);
}

void topKRank(Node& node) {
  const TensorType& x = inputType(node, 0);
  unknownDims(node, 0, x.dtype, x.rank());
  if (node.outputs.size() > 1) unknownDims(node, 1, DataType::int64(), x.rank());
}

void sameType(Node& node) { setOutput(node, 0, inputType(node, 0)); }

// Elementwise ops, Cast, CastLike and Where (which broadcast run-time dims), Shape and Size (which
// read only the rank): their own inference holds for dims sized at run time.
bool ownInferenceHolds(const std::string& op) {
  static const std::set<std::string> kOps = {
      "Neg",   "Abs",   "Sign",  "Relu",       "Sqrt",        "Exp",
      "Log",   "Cos",   "Sin",   "Tan",        "Tanh",        "Erf",
      "Floor", "Ceil",  "Round", "Reciprocal", "Sigmoid",     "Not",
      "Add",   "Sub",   "Mul",   "Div",        "Pow",         "Max",
      "Min",   "Equal", "Less",  "Greater",    "LessOrEqual", "GreaterOrEqual",
      "And",   "Or",    "Xor",   "Cast",       "CastLike",    "Where",
      "Shape", "Size"};
  return kOps.count(op) != 0;
}

struct RunTimeShapes {
  std::vector<int> shapeInputs;
  std::function<void(Node&)> infer;
};

const std::map<std::string, RunTimeShapes>& table() {
  static const std::map<std::string, RunTimeShapes> kTable = {
      {"ConstantOfShape", {{0}, constantOfShapeRank}},
      {"Expand", {{1}, expandRank}},
      {"Identity", {{}, sameType}},
      {"Pad", {{1, 3}, sameRank}},
      {"ReduceSum", {{1}, reduceRank}},
      {"Split", {{1}, sameRank}},
      {"Tile", {{1}, sameRank}},
      {"TopK", {{1}, topKRank}},
  };
  return kTable;
}

}  // namespace

void attachRunTimeShapes(OpDef& def) {
  auto it = table().find(def.name);
  if (it == table().end()) {
    if (runtime::findRuntimeOp(def.name) != nullptr && ownInferenceHolds(def.name)) {
      def.inferRunTime = def.inferTypes;
    }
    return;
  }
  def.shapeInputs = it->second.shapeInputs;
  def.inferRunTime = it->second.infer;
}

}  // namespace kiln::ir::ops
