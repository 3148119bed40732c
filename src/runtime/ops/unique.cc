// Unique: the distinct elements (or slices along an axis) of a tensor, with where they first
// occur, where each input element went and how often each occurs.
#include <algorithm>
#include <numeric>

#include "context_view.h"
#include "kiln/opdef/sequence_axes.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {

void runUnique(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  std::optional<int64_t> along = opdef::selectionAxis(ContextView(ctx));  // as at compile time
  bool flat = !along;
  Shape in = flat ? Shape{x.numel()} : x.shape();
  auto d = static_cast<size_t>(flat ? 0 : *along);
  bool sorted = attrInt(ctx, "sorted", 1) != 0;
  AroundAxis around = aroundAxis(in, d);
  int64_t outer = around.outer, n = around.n, inner = around.inner;
  std::vector<int64_t> firstOf;  // per unique slice: its first index along the axis
  std::vector<int64_t> inverse(static_cast<size_t>(n));
  std::vector<int64_t> counts;
  visitNumeric(ctx, x.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* p = static_cast<const T*>(x.data());
    auto cmp = [&](int64_t a, int64_t b) {  // slices a and b: -1, 0 or 1
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          T va = p[(o * n + a) * inner + i], vb = p[(o * n + b) * inner + i];
          if (va != vb) return va < vb ? -1 : 1;
        }
      }
      return 0;
    };
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    // Equal slices in index order: each group starts with its first occurrence.
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      int c = cmp(a, b);
      return c != 0 ? c < 0 : a < b;
    });
    std::vector<int64_t> groupOf(static_cast<size_t>(n));
    for (size_t i = 0; i < order.size(); ++i) {
      if (i == 0 || cmp(order[i - 1], order[i]) != 0) {
        firstOf.push_back(order[i]);  // stable: the lowest index of its group
        counts.push_back(0);
      }
      groupOf[static_cast<size_t>(order[i])] = static_cast<int64_t>(firstOf.size() - 1);
      ++counts.back();
    }
    std::vector<int64_t> rank(firstOf.size());
    std::iota(rank.begin(), rank.end(), 0);
    if (!sorted) {  // order of first occurrence
      std::vector<int64_t> byFirst(firstOf.size());
      std::iota(byFirst.begin(), byFirst.end(), 0);
      std::sort(byFirst.begin(), byFirst.end(),
                [&](int64_t a, int64_t b) { return firstOf[a] < firstOf[b]; });
      for (size_t r = 0; r < byFirst.size(); ++r) rank[static_cast<size_t>(byFirst[r])] = r;
      std::vector<int64_t> f(firstOf.size()), c(counts.size());
      for (size_t g = 0; g < firstOf.size(); ++g) {
        f[static_cast<size_t>(rank[g])] = firstOf[g];
        c[static_cast<size_t>(rank[g])] = counts[g];
      }
      firstOf.swap(f);
      counts.swap(c);
    }
    for (int64_t i = 0; i < n; ++i) inverse[i] = rank[static_cast<size_t>(groupOf[i])];
  });
  takeSlices(ctx, x, in, d, firstOf);
  auto fill = [&](size_t i, const std::vector<int64_t>& v) {
    if (ctx.numOutputs() <= i) return;
    NDArray a = ctx.output(i, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), a.data<int64_t>());
  };
  fill(1, firstOf);
  fill(2, inverse);
  fill(3, counts);
}

}  // namespace kiln::runtime::ops
