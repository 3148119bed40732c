// Shared checks of the ops' type inference, so every op reports problems the same way.
#include "infer_util.h"

#include <algorithm>

#include "../element_access.h"
#include "kiln/ir/node_view.h"
#include "kiln/opdef/axes.h"
#include "kiln/opdef/broadcast.h"

namespace kiln::ir::ops {

namespace {

std::string inputLabel(size_t i, const char* what) {
  return what && *what ? strCat("input ", i, " (", what, ")") : strCat("input ", i);
}

}  // namespace

bool hasInput(const Node& node, size_t i) { return i < node.inputs.size() && node.inputs[i]; }

const TensorType& inputType(const Node& node, size_t i, const char* what) {
  if (!hasInput(node, i)) fail(node, inputLabel(i, what), " is required but was omitted");
  return node.inputs[i]->type;
}

void setOutput(Node& node, size_t i, TensorType type) {
  // Throws for negative dims or an element count beyond int64; kDynamicDim marks a dim the
  // runtime sizes.
  Shape known;
  for (int64_t d : type.shape) {
    if (d != runtime::kDynamicDim) known.push_back(d);
  }
  runtime::shapeNumel(known);
  if (i < node.outputs.size() && node.outputs[i]) node.outputs[i]->type = std::move(type);
}

void requireOutputsAtMost(const Node& node, size_t n, const char* why) {
  if (node.outputs.size() > n) {
    fail(node, "has ", node.outputs.size(), " outputs; expected at most ", n, " (", why, ")");
  }
}

bool isFloatType(DataType t) {
  return t.lanes == 1 && ((t.code == kDLFloat && (t.bits == 16 || t.bits == 32 || t.bits == 64)) ||
                          (t.code == kDLBfloat && t.bits == 16));
}

bool isSignedIntType(DataType t) { return t.lanes == 1 && t.code == kDLInt; }

bool isIntegerType(DataType t) { return t.lanes == 1 && (t.code == kDLInt || t.code == kDLUInt); }

void requireFloat(const Node& node, size_t i) {
  DataType t = inputType(node, i).dtype;
  if (!isFloatType(t)) {
    fail(node, "input ", i, " has type ", t.str(),
         "; expected float16, float32, float64 or bfloat16");
  }
}

void requireFloatOrSignedInt(const Node& node, size_t i) {
  DataType t = inputType(node, i).dtype;
  if (!isFloatType(t) && !isSignedIntType(t)) {
    fail(node, "input ", i, " has type ", t.str(), "; expected a float or signed integer type");
  }
}

void requireNumeric(const Node& node, size_t i) {
  DataType t = inputType(node, i).dtype;
  if (!isFloatType(t) && !isIntegerType(t)) {
    fail(node, "input ", i, " has type ", t.str(), "; expected a numeric (float or integer) type");
  }
}

void requireIndexType(const Node& node, size_t i) {
  DataType t = inputType(node, i).dtype;
  if (t != DataType::int64() && t != DataType::int32()) {
    fail(node, "input ", i, " has type ", t.str(), "; expected int32 or int64");
  }
}

void requireSameDtype(const Node& node, size_t i, size_t j) {
  DataType a = inputType(node, i).dtype;
  DataType b = inputType(node, j).dtype;
  if (a != b) {
    fail(node, "input ", j, " has type ", b.str(), " but input ", i, " has type ", a.str(),
         "; expected equal types");
  }
}

void requireRankAtLeast(const Node& node, size_t i, int rank, const char* why) {
  const TensorType& t = inputType(node, i);
  if (t.rank() < rank) {
    fail(node, "input ", i, " is ", t.str(), " (rank ", t.rank(), "); expected rank >= ", rank,
         " (", why, ")");
  }
}

int64_t normalizeAxis(const Node& node, int64_t axis, int64_t rank, const char* what,
                      bool inclusive) {
  return opdef::normalizeAxis(NodeView(node), axis, rank, what, inclusive);
}

opdef::DimList broadcastShapes(const Node& node, const opdef::DimList& a, const opdef::DimList& b) {
  return opdef::broadcastDims(NodeView(node), a, b);
}

bool broadcastsTo(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  size_t lead = to.size() - from.size();
  for (size_t k = 0; k < from.size(); ++k) {
    if (from[k] != 1 && from[k] != to[lead + k]) return false;
  }
  return true;
}

std::optional<std::vector<int64_t>> constantInts(const Value* v) {
  if (!v || !v->isConstant()) return std::nullopt;
  DataType t = v->constant->dtype();
  if (!isIntegerType(t) && !t.isBool()) return std::nullopt;
  return loadInts(*v->constant);
}

}  // namespace kiln::ir::ops
