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

Dims rangeShape(const OpView& op, bool isFloat, bool float32) {
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
    if (!s || !l || !d) return {kUnknownDim};
    return {rangeCountFloat(op, (*s)[0], (*l)[0], (*d)[0], float32)};
  }
  auto s = op.inputInts(0, kNames[0]), l = op.inputInts(1, kNames[1]);
  auto d = op.inputInts(2, kNames[2]);
  if (!s || !l || !d) return {kUnknownDim};
  return {rangeCountInt(op, (*s)[0], (*l)[0], (*d)[0])};
}

}  // namespace kiln::opdef
