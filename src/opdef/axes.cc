// Axis normalisation with errors naming the node, the axis and the valid range.
#include "kiln/opdef/axes.h"

#include <set>

namespace kiln::opdef {

int64_t normalizeAxis(const OpView& op, int64_t axis, int64_t rank, const char* what,
                      bool inclusive) {
  int64_t hi = inclusive ? rank : rank - 1;
  if (axis < -rank || axis > hi) {
    fail(op, what, " ", axis, " is out of range for rank ", rank, "; expected ", -rank, "..", hi);
  }
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> normalizeAxes(const OpView& op, const std::vector<int64_t>& axes, int64_t rank,
                                   const char* what) {
  std::vector<int64_t> result;
  std::set<int64_t> seen;
  for (int64_t a : axes) {
    int64_t n = normalizeAxis(op, a, rank, what);
    if (!seen.insert(n).second) fail(op, what, " ", listStr(axes), " name axis ", n, " twice");
    result.push_back(n);
  }
  return result;
}

}  // namespace kiln::opdef
