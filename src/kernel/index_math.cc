// Index arithmetic shared by all lowerings; everything folds when its inputs are immediates.
#include "index_math.h"

#include <limits>

#include "kiln/support/error.h"

namespace kiln::kernel {

int64_t product(const Dims& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < dims.size() && i < end; ++i) p *= dims[i];
  return p;
}

Dims stridesOf(const Dims& shape) {
  Dims s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

Expr flatten(const Index& idx, const Dims& shape) {
  KILN_CHECK(idx.size() == shape.size(), "index of rank ", idx.size(), " into shape of rank ",
             shape.size());
  Expr flat = idx.empty() ? intImm(0) : nullptr;
  for (size_t d = 0; d < idx.size(); ++d) {
    Expr i = shape[d] == 1 ? intImm(0) : idx[d];
    flat = flat == nullptr ? i : flat * intImm(shape[d]) + i;
  }
  return flat;
}

Index unflatten(const Expr& flat, const Dims& shape) {
  Index out(shape.size());
  Dims strides = stridesOf(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) {
      out[d] = intImm(0);
      continue;
    }
    Expr q = binary(BinaryOp::kFloorDiv, flat, intImm(strides[d]));
    out[d] = d == 0 ? q : binary(BinaryOp::kFloorMod, q, intImm(shape[d]));
  }
  return out;
}

Index broadcastIndex(const Index& outIdx, const Dims& inShape) {
  Index extents;
  for (int64_t d : inShape) extents.push_back(intImm(d));
  return broadcastIndex(outIdx, extents);
}

namespace {

bool isOne(const Expr& e) { return e->kind == ExprKind::kIntImm && e->intValue == 1; }

}  // namespace

Expr productOf(const Index& extents) {
  Expr p = intImm(1);
  for (const Expr& e : extents) p = p * e;
  return p;
}

Expr flatten(const Index& idx, const Index& extents) {
  KILN_CHECK(idx.size() == extents.size(), "index of rank ", idx.size(), " into extents of rank ",
             extents.size());
  Expr flat = idx.empty() ? intImm(0) : nullptr;
  for (size_t d = 0; d < idx.size(); ++d) {
    Expr i = isOne(extents[d]) ? intImm(0) : idx[d];
    flat = flat == nullptr ? i : flat * extents[d] + i;
  }
  return flat;
}

Index unflatten(const Expr& flat, const Index& extents) {
  Index out(extents.size());
  Expr stride = intImm(1);
  for (size_t d = extents.size(); d-- > 0;) {
    if (isOne(extents[d])) {
      out[d] = intImm(0);
      continue;
    }
    Expr q = isOne(stride) ? flat : binary(BinaryOp::kFloorDiv, flat, stride);
    out[d] = d == 0 ? q : binary(BinaryOp::kFloorMod, q, extents[d]);
    stride = stride * extents[d];
  }
  return out;
}

Index broadcastIndex(const Index& outIdx, const Index& inExtents) {
  KILN_CHECK(inExtents.size() <= outIdx.size(), "broadcast from rank ", inExtents.size(), " to ",
             outIdx.size());
  size_t lead = outIdx.size() - inExtents.size();
  Index in(inExtents.size());
  for (size_t d = 0; d < inExtents.size(); ++d) {
    in[d] = isOne(inExtents[d]) ? intImm(0) : outIdx[lead + d];
  }
  return in;
}

Expr floorDivBy(const Expr& a, int64_t b) {
  KILN_CHECK(b > 0, "division by ", b);
  return binary(BinaryOp::kFloorDiv, a, intImm(b));
}

Expr ceilDivBy(const Expr& a, int64_t b) { return floorDivBy(a + intImm(b - 1), b); }

int64_t ceilDiv(int64_t a, int64_t b) {
  KILN_CHECK(b > 0, "division by ", b);
  // a / b rounded up, without forming a + b - 1 (which overflows for a near INT64_MAX).
  return a >= 0 ? a / b + (a % b != 0 ? 1 : 0) : -((-a) / b);
}

Expr clampTo(const Expr& e, int64_t lo, int64_t hi) { return min(max(e, intImm(lo)), intImm(hi)); }

Expr idx(int64_t v) { return intImm(v); }

Expr lowest(DataType t) {
  if (t.isFloat()) return floatImm(-std::numeric_limits<double>::infinity(), t);
  if (t.isBool() || t.isUInt()) return intImm(0, t);
  return intImm(t.bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits - 1)),
                t);
}

Expr highest(DataType t) {
  if (t.isFloat()) return floatImm(std::numeric_limits<double>::infinity(), t);
  if (t.isBool()) return intImm(1, t);
  if (t.isUInt()) return intImm(t.bits >= 64 ? -1 : (int64_t{1} << t.bits) - 1, t);
  return intImm(
      t.bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (t.bits - 1)) - 1, t);
}

}  // namespace kiln::kernel
