// Sequences and optionals: building, reading and cutting lists of tensors. A tensor put into a
// list is copied (the executor reuses its memory); lists share their tensors, which nothing
// writes once they are in a list.
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

// The position input I of a list of SIZE entries, in [-size, size - 1] (or [-size, size] when
// INSERTING: at the end), as an index from the front.
size_t position(const RuntimeOpContext& ctx, size_t i, size_t size, bool inserting) {
  int64_t p = inputScalarInt(ctx, i, "position");
  auto n = static_cast<int64_t>(size);
  int64_t hi = inserting ? n : n - 1;
  if (p < -n || p > hi) {
    fail(ctx, "position ", p, " is out of range for a sequence of ", n, " tensors; expected ", -n,
         " to ", hi);
  }
  return static_cast<size_t>(p < 0 ? p + n : p);
}

const TensorList& sequenceInput(const RuntimeOpContext& ctx, size_t i) {
  if (ctx.inputKind(i) != ValueKind::kSequence) {
    fail(ctx, "input ", i, " is a ", valueKindName(ctx.inputKind(i)), "; expected a sequence");
  }
  return ctx.listInput(i);
}

}  // namespace

void runSequenceEmpty(RuntimeOpContext& ctx) { ctx.setListOutput(0, TensorList{}); }

void runSequenceConstruct(RuntimeOpContext& ctx) {
  TensorList list;
  for (size_t i = 0; i < ctx.numInputs(); ++i) list.items.push_back(ctx.input(i).clone());
  ctx.setListOutput(0, std::move(list));
}

void runSequenceInsert(RuntimeOpContext& ctx) {
  TensorList list = sequenceInput(ctx, 0);
  size_t at = ctx.hasInput(2) ? position(ctx, 2, list.items.size(), true) : list.items.size();
  list.items.insert(list.items.begin() + static_cast<std::ptrdiff_t>(at), ctx.input(1).clone());
  ctx.setListOutput(0, std::move(list));
}

void runSequenceAt(RuntimeOpContext& ctx) {
  const TensorList& list = sequenceInput(ctx, 0);
  copyToOutput(ctx, 0, list.items[position(ctx, 1, list.items.size(), false)]);
}

void runSequenceErase(RuntimeOpContext& ctx) {
  TensorList list = sequenceInput(ctx, 0);
  if (list.items.empty()) fail(ctx, "cannot erase from an empty sequence");
  size_t at = ctx.hasInput(1) ? position(ctx, 1, list.items.size(), false) : list.items.size() - 1;
  list.items.erase(list.items.begin() + static_cast<std::ptrdiff_t>(at));
  ctx.setListOutput(0, std::move(list));
}

void runSequenceLength(RuntimeOpContext& ctx) {
  NDArray y = ctx.output(0, {});
  *y.data<int64_t>() = static_cast<int64_t>(sequenceInput(ctx, 0).items.size());
}

// The sizes along the axis (of size DIM) of the pieces: split's entries, pieces of split's one
// value (the last one smaller), or pieces of 1.
std::vector<int64_t> pieceSizes(const RuntimeOpContext& ctx, int64_t dim) {
  if (!ctx.hasInput(1)) return std::vector<int64_t>(static_cast<size_t>(dim), 1);
  std::vector<int64_t> split = inputInts(ctx, 1, "split");
  if (ctx.input(1).shape().empty()) {
    int64_t n = split.at(0);
    if (n <= 0) fail(ctx, "split is ", n, "; expected > 0");
    std::vector<int64_t> sizes;
    for (int64_t at = 0; at < dim; at += n) sizes.push_back(std::min(n, dim - at));
    return sizes;
  }
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0) fail(ctx, "split ", listStr(split), " has a negative size");
    total += s;
  }
  if (total != dim) fail(ctx, "split ", listStr(split), " sums to ", total, "; the axis has ", dim);
  return split;
}

void runSplitToSequence(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  const Shape& in = x.shape();
  auto axis = static_cast<size_t>(
      normalizeAxis(ctx, attrInt(ctx, "axis", 0), static_cast<int64_t>(in.size())));
  bool drop = !ctx.hasInput(1) && attrInt(ctx, "keepdims", 1) == 0;
  AroundAxis a = aroundAxis(in, axis);
  size_t elem = x.dtype().bytes();
  const auto* src = static_cast<const char*>(x.data());
  TensorList list;
  int64_t start = 0;
  for (int64_t size : pieceSizes(ctx, in[axis])) {
    Shape shape = in;
    shape[axis] = size;
    NDArray piece = NDArray::empty(shape, x.dtype());
    auto row = static_cast<size_t>(size * a.inner) * elem;
    auto* dst = static_cast<char*>(piece.data());
    for (int64_t o = 0; o < a.outer; ++o) {
      std::memcpy(dst + static_cast<size_t>(o) * row,
                  src + static_cast<size_t>((o * a.n + start) * a.inner) * elem, row);
    }
    if (drop) shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(axis));
    list.items.push_back(drop ? piece.view(shape, x.dtype()) : piece);
    start += size;
  }
  ctx.setListOutput(0, std::move(list));
}

void runConcatFromSequence(RuntimeOpContext& ctx) {
  const TensorList& list = sequenceInput(ctx, 0);
  if (list.items.empty()) fail(ctx, "cannot concatenate an empty sequence");
  bool newAxis = attrInt(ctx, "new_axis", 0) != 0;
  const Shape& first = list.items[0].shape();
  auto rank = static_cast<int64_t>(first.size()) + (newAxis ? 1 : 0);
  auto axis = static_cast<size_t>(normalizeAxis(ctx, attrInt(ctx, "axis", 0), rank));
  Shape out = first;
  if (newAxis) out.insert(out.begin() + static_cast<std::ptrdiff_t>(axis), 0);
  for (size_t k = 0; k < list.items.size(); ++k) {
    Shape s = list.items[k].shape();
    if (newAxis) s.insert(s.begin() + static_cast<std::ptrdiff_t>(axis), 1);
    Shape rest = s, want = out;
    rest[axis] = want[axis] = 0;
    if (rest != want) {
      fail(ctx, "tensor ", k, " of the sequence is ", shapeStr(list.items[k].shape()),
           "; tensor 0 is ", shapeStr(first), " (they may differ only along axis ", axis, ")");
    }
    out[axis] += k == 0 && !newAxis ? 0 : s[axis];
  }
  NDArray y = ctx.output(0, out);
  AroundAxis a = aroundAxis(out, axis);
  size_t elem = y.dtype().bytes();
  auto* dst = static_cast<char*>(y.data());
  int64_t start = 0;
  for (const NDArray& x : list.items) {
    int64_t n = newAxis ? 1 : x.shape()[axis];
    auto row = static_cast<size_t>(n * a.inner) * elem;
    const auto* src = static_cast<const char*>(x.data());
    for (int64_t o = 0; o < a.outer; ++o) {
      std::memcpy(dst + static_cast<size_t>((o * a.n + start) * a.inner) * elem,
                  src + static_cast<size_t>(o) * row, row);
    }
    start += n;
  }
}

void runOptional(RuntimeOpContext& ctx) {
  if (!ctx.hasInput(0)) return ctx.setListOutput(0, TensorList::noValue());
  if (ctx.inputKind(0) == ValueKind::kSequence) return ctx.setListOutput(0, ctx.listInput(0));
  ctx.setListOutput(0, TensorList{{ctx.input(0).clone()}, false});
}

void runOptionalHasElement(RuntimeOpContext& ctx) {
  bool has = ctx.hasInput(0) && (!isOptional(ctx.inputKind(0)) || !ctx.listInput(0).none);
  NDArray y = ctx.output(0, {});
  *y.data<bool>() = has;
}

void runOptionalGetElement(RuntimeOpContext& ctx) {
  ValueKind kind = ctx.inputKind(0);
  if (kind == ValueKind::kTensor) {
    copyToOutput(ctx, 0, ctx.input(0));
    return;
  }
  const TensorList& v = ctx.listInput(0);
  if (v.none) fail(ctx, "the optional input holds no value");
  if (kind == ValueKind::kOptionalTensor) {
    copyToOutput(ctx, 0, v.items.at(0));
    return;
  }
  ctx.setListOutput(0, v);
}

}  // namespace kiln::runtime::ops
