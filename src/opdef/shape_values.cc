// What the shape computations of exported models compute, followed as sizes in the graph's
// symbols: Shape and Size, the ops that move such values (Identity, Cast, Reshape, Squeeze,
// Unsqueeze, Flatten, Concat, Gather, Slice), integer arithmetic on them, and Equal and Where
// (the "-1 keeps the dim" rewrite of Expand's shape).
#include "kiln/opdef/shape_values.h"

#include <algorithm>
#include <functional>
#include <map>

#include "kiln/opdef/reshape.h"
#include "kiln/opdef/slice.h"

namespace kiln::opdef {
namespace {

using Values = std::optional<DimList>;

// Input I's elements as sizes, when it holds integers whose elements are known now.
Values sizesOf(const OpView& op, size_t i) {
  if (!op.inputIsInteger(i)) return std::nullopt;
  return op.inputSizes(i, "input");
}

Values shapeOf(const OpView& op) {
  DimList dims = op.inputDims(0);
  DimRange range = shapeOpRange(op);
  return DimList(dims.begin() + range.start, dims.begin() + range.end);
}

Values sizeOf(const OpView& op) {
  Dim n = 1;
  for (const Dim& d : op.inputDims(0)) n = n * d;
  return DimList{n};
}

// Identity, Reshape, Squeeze, Unsqueeze, Flatten: the same elements in the same order.
Values sameElements(const OpView& op) { return sizesOf(op, 0); }

// A cast between integer types keeps sizes (a size never overflows int32 in a shape computation
// kiln follows: it would not address memory either).
Values castOf(const OpView& op) {
  static constexpr int64_t kInt32 = 6, kInt64 = 7;
  int64_t to = op.attrInt("to", 0);
  return to == kInt32 || to == kInt64 ? sizesOf(op, 0) : std::nullopt;
}

// Concat of 1-D tensors.
Values concatOf(const OpView& op) {
  DimList out;
  for (size_t i = 0; i < op.numInputs(); ++i) {
    if (op.inputShape(i).size() != 1) return std::nullopt;
    Values v = sizesOf(op, i);
    if (!v) return std::nullopt;
    out.insert(out.end(), v->begin(), v->end());
  }
  return out;
}

// Gather along axis 0 of a 1-D tensor, with constant indices.
Values gatherOf(const OpView& op) {
  Values data = sizesOf(op, 0);
  std::optional<std::vector<int64_t>> indices =
      op.inputIsInteger(1) ? op.inputInts(1, "indices") : std::nullopt;
  if (!data || !indices || op.inputShape(0).size() != 1) return std::nullopt;
  auto n = static_cast<int64_t>(data->size());
  DimList out;
  for (int64_t k : *indices) {
    if (k < -n || k >= n) return std::nullopt;  // the op's own rule reports it
    out.push_back((*data)[static_cast<size_t>(k < 0 ? k + n : k)]);
  }
  return out;
}

// Slice of a 1-D tensor with constant arguments.
Values sliceOf(const OpView& op) {
  Values data = sizesOf(op, 0);
  if (!data || op.inputShape(0).size() != 1) return std::nullopt;
  SliceRange r = sliceRanges(op)[0];
  if (r.size == kUnknownDim) return std::nullopt;
  DimList out;
  for (int64_t k = 0; k < r.size; ++k)
    out.push_back((*data)[static_cast<size_t>(r.start + k * r.step)]);
  return out;
}

// Elementwise integer arithmetic, a one-element operand broadcast to the other's length.
Values arithmetic(const OpView& op,
                  const std::function<std::optional<Dim>(const Dim&, const Dim&)>& f) {
  Values a = sizesOf(op, 0), b = sizesOf(op, 1);
  if (!a || !b || op.inputShape(0).size() > 1 || op.inputShape(1).size() > 1) return std::nullopt;
  if (a->size() != b->size() && a->size() != 1 && b->size() != 1) return std::nullopt;
  size_t n = std::max(a->size(), b->size());
  DimList out;
  for (size_t k = 0; k < n; ++k) {
    std::optional<Dim> v = f((*a)[a->size() == 1 ? 0 : k], (*b)[b->size() == 1 ? 0 : k]);
    if (!v || v->isUnknown()) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

// Integer division truncates; over sizes (>= 0) that is the exact quotient where one exists.
std::optional<Dim> divide(const Dim& a, const Dim& b) {
  if (a.isConst() && b.isConst()) {
    if (b.value() == 0) return std::nullopt;
    return Dim(a.value() / b.value());
  }
  return Dim::divideExactly(a, b);
}

// Sizes are never negative: a size with no negative coefficient differs from a negative constant
// (exporters compare shapes with -1 to find Expand's "keep this dim").
bool neverNegative(const Dim& d) {
  if (d.isUnknown()) return false;
  for (const Dim::Term& t : d.terms()) {
    if (t.coef < 0) return false;
  }
  return true;
}

// Equal of sizes: 1 where they are known equal, 0 where known to differ, unknown otherwise.
std::optional<Dim> equalSizes(const Dim& a, const Dim& b) {
  if (sameSize(a, b)) return Dim(1);
  if (a.isConst() && b.isConst()) return Dim(a.value() == b.value() ? 1 : 0);
  if ((a.isConst() && a.value() < 0 && neverNegative(b)) ||
      (b.isConst() && b.value() < 0 && neverNegative(a))) {
    return Dim(0);
  }
  return std::nullopt;
}

// Where over sizes, its condition known element by element (one-element operands broadcast).
Values whereOf(const OpView& op) {
  Values cond = sizesOf(op, 0), x = sizesOf(op, 1), y = sizesOf(op, 2);
  if (!cond || !x || !y) return std::nullopt;
  size_t n = std::max({cond->size(), x->size(), y->size()});
  for (const DimList* v : {&*cond, &*x, &*y}) {
    if (v->size() != n && v->size() != 1) return std::nullopt;
  }
  auto at = [n](const DimList& v, size_t k) { return v[v.size() == n ? k : 0]; };
  DimList out;
  for (size_t k = 0; k < n; ++k) {
    Dim c = at(*cond, k);
    if (!c.isConst()) return std::nullopt;
    out.push_back(c.value() != 0 ? at(*x, k) : at(*y, k));
  }
  return out;
}

Values negOf(const OpView& op) {
  Values a = sizesOf(op, 0);
  if (!a) return std::nullopt;
  for (Dim& d : *a) d = Dim(0) - d;
  return a;
}

}  // namespace

std::optional<DimList> shapeValues(const OpView& op) {
  using Rule = Values (*)(const OpView&);
  static const std::map<std::string, Rule> kRules = {
      {"Shape", shapeOf},
      {"Size", sizeOf},
      {"Identity", sameElements},
      {"Reshape", sameElements},
      {"Squeeze", sameElements},
      {"Unsqueeze", sameElements},
      {"Flatten", sameElements},
      {"Cast", castOf},
      {"Concat", concatOf},
      {"Gather", gatherOf},
      {"Slice", sliceOf},
      {"Neg", negOf},
      {"Where", whereOf},
      {"Equal", [](const OpView& o) { return arithmetic(o, equalSizes); }},
      {"Add",
       [](const OpView& o) {
         return arithmetic(o, [](const Dim& a, const Dim& b) { return a + b; });
       }},
      {"Sub",
       [](const OpView& o) {
         return arithmetic(o, [](const Dim& a, const Dim& b) { return a - b; });
       }},
      {"Mul",
       [](const OpView& o) {
         return arithmetic(o, [](const Dim& a, const Dim& b) { return a * b; });
       }},
      {"Div", [](const OpView& o) { return arithmetic(o, divide); }},
  };
  auto it = kRules.find(op.op());
  if (it == kRules.end()) return std::nullopt;
  try {
    return it->second(op);
  } catch (const Error&) {
    return std::nullopt;  // sizes that overflow, arguments the op's own rule refuses
  }
}

}  // namespace kiln::opdef
