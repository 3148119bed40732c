// Broadcasting, Expand and Tile: the output dims and the errors when shapes do not fit.
#include "kiln/opdef/broadcast.h"

#include <algorithm>

namespace kiln::opdef {

namespace {

// The size of dims DA and DB broadcast together (checked to fit where both are constants).
Dim broadcastDim(const Dim& da, const Dim& db) {
  if (da == db || db == Dim(1)) return da;
  if (da == Dim(1)) return db;
  // A size not known now is, at run time, 1 or the other size: a constant wins; two different
  // symbolic sizes (or unknown ones) give one known only at run time.
  if (da.isConst()) return da;
  if (db.isConst()) return db;
  return Dim::unknown();
}

}  // namespace

DimList broadcastDims(const OpView& op, const DimList& a, const DimList& b) {
  size_t rank = std::max(a.size(), b.size());
  DimList out(rank);
  for (size_t k = 0; k < rank; ++k) {
    Dim da = k < rank - a.size() ? Dim(1) : a[k - (rank - a.size())];
    Dim db = k < rank - b.size() ? Dim(1) : b[k - (rank - b.size())];
    if (da.isConst() && db.isConst() && da != db && da != Dim(1) && db != Dim(1)) {
      fail(op, "shapes ", dimListStr(a), " and ", dimListStr(b), " cannot be broadcast: dimension ",
           k, " is ", da.value(), " vs ", db.value(), "; expected equal sizes or 1");
    }
    out[k] = broadcastDim(da, db);
  }
  return out;
}

DimList broadcastInputs(const OpView& op) {
  DimList out;
  for (size_t i = 0; i < op.numInputs(); ++i) {
    if (op.hasInput(i)) out = broadcastDims(op, out, op.inputDims(i));
  }
  return out;
}

DimList expandShape(const OpView& op) {
  return broadcastDims(op, op.inputDims(0), dimsFromInput(op, 1, "shape"));
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
