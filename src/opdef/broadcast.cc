// Broadcasting, Expand and Tile: the output dims and the errors when shapes do not fit.
#include "kiln/opdef/broadcast.h"

#include <algorithm>

namespace kiln::opdef {

Dims broadcastDims(const OpView& op, const Dims& a, const Dims& b) {
  size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t k = 0; k < rank; ++k) {
    int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da != db && da != 1 && db != 1 && da != kUnknownDim && db != kUnknownDim) {
      fail(op, "shapes ", dimsStr(a), " and ", dimsStr(b), " cannot be broadcast: dimension ", k,
           " is ", da, " vs ", db, "; expected equal sizes or 1");
    }
    // An unknown dim against 1 stays unknown; against a known size other than 1 it must be that.
    out[k] = (da == 1 || da == kUnknownDim) && db != 1 ? db : da;
  }
  return out;
}

Dims broadcastInputs(const OpView& op) {
  Dims out;
  for (size_t i = 0; i < op.numInputs(); ++i) {
    if (op.hasInput(i)) out = broadcastDims(op, out, op.inputShape(i));
  }
  return out;
}

Dims expandShape(const OpView& op) {
  return broadcastDims(op, op.inputShape(0), dimsFromInput(op, 1, "shape"));
}

Dims tileShape(const OpView& op) {
  Dims in = op.inputShape(0);
  int64_t length = listLength(op, 1, "repeats");
  std::optional<std::vector<int64_t>> repeats = op.inputInts(1, "repeats");
  if (length != static_cast<int64_t>(in.size())) {
    fail(op, "repeats ", repeats ? listStr(*repeats) : std::string("(input 1)"), " has ", length,
         " entries for input ", op.inputTypeStr(0), "; expected one per dim (", in.size(), ")");
  }
  if (!repeats) return Dims(in.size(), kUnknownDim);
  Dims out = in;
  for (size_t d = 0; d < out.size(); ++d) {
    int64_t r = (*repeats)[d];
    if (r < 0) fail(op, "repeats ", listStr(*repeats), " has a negative entry");
    if (in[d] == kUnknownDim) {
      out[d] = r == 0 ? 0 : kUnknownDim;
      continue;
    }
    if (__builtin_mul_overflow(in[d], r, &out[d])) {
      fail(op, "dim ", d, " of the output (", in[d], " x ", r, ") overflows int64");
    }
  }
  return out;
}

}  // namespace kiln::opdef
