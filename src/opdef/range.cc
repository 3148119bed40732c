// Range's element count, exact for integers, with the float difference taken in the element type.
#include "kiln/opdef/range.h"

#include <cmath>

namespace kiln::opdef {

int64_t rangeCountInt(const OpView& op, int64_t start, int64_t limit, int64_t delta) {
  if (delta == 0) fail(op, "delta is 0; expected a non-zero step");
  __int128 diff = static_cast<__int128>(limit) - start;
  __int128 d = delta;
  if ((diff > 0) != (d > 0) || diff == 0) return 0;
  if (d < 0) {
    diff = -diff;
    d = -d;
  }
  return static_cast<int64_t>((diff + d - 1) / d);
}

int64_t rangeCountFloat(const OpView& op, double start, double limit, double delta, bool float32) {
  if (delta == 0) fail(op, "delta is 0; expected a non-zero step");
  double diff = limit - start;
  if (float32) diff = static_cast<float>(diff);
  double n = std::ceil(diff / delta);
  if (!(n < 9.0e18)) fail(op, "the range has ", n, " elements; too many");
  return n > 0 ? static_cast<int64_t>(n) : 0;
}

namespace {

// The count of an integer Range whose start or limit is a size in the graph's symbols (position
// ids from the cache length to the cache length plus the sequence length): (limit - start) /
// delta when the difference is a size (no negative coefficient) that a positive delta divides.
Dim symbolicRangeCount(const OpView& op) {
  std::optional<DimList> s = op.inputSizes(0, "start"), l = op.inputSizes(1, "limit");
  std::optional<std::vector<int64_t>> d = op.inputInts(2, "delta");
  if (!s || !l || !d || s->size() != 1 || l->size() != 1 || (*d)[0] <= 0) return Dim::unknown();
  Dim diff = (*l)[0] - (*s)[0];
  for (const Dim::Term& t : diff.terms()) {
    if (t.coef < 0) return Dim::unknown();
  }
  return Dim::divideExactly(diff, Dim((*d)[0])).value_or(Dim::unknown());
}

}  // namespace

DimList rangeShape(const OpView& op, bool isFloat, bool float32) {
  static const char* const kNames[] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    Dims s = op.inputShape(i);
    if (s.size() > 1 || (s.size() == 1 && s[0] != 1)) {
      fail(op, kNames[i], " has shape ", dimsStr(s), "; expected a scalar");
    }
  }
  if (isFloat) {
    auto s = op.inputDoubles(0, kNames[0]), l = op.inputDoubles(1, kNames[1]);
    auto d = op.inputDoubles(2, kNames[2]);
    if (!s || !l || !d) return {Dim::unknown()};
    return {rangeCountFloat(op, (*s)[0], (*l)[0], (*d)[0], float32)};
  }
  auto s = op.inputInts(0, kNames[0]), l = op.inputInts(1, kNames[1]);
  auto d = op.inputInts(2, kNames[2]);
  if (!s || !l || !d) return {symbolicRangeCount(op)};
  return {rangeCountInt(op, (*s)[0], (*l)[0], (*d)[0])};
}

}  // namespace kiln::opdef
