// Index arithmetic shared by all lowerings: row-major flattening, broadcasting, rounding division.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/tir/prim_func.h"

namespace kiln::kernel {

// The kernel layer builds loop IR everywhere; its names are used unqualified.
using namespace ::kiln::tir;  // NOLINT(google-build-using-namespace)

using Index = std::vector<Expr>;
using Dims = std::vector<int64_t>;

int64_t product(const Dims& dims, size_t begin = 0, size_t end = SIZE_MAX);
// Row-major element strides of SHAPE.
Dims stridesOf(const Dims& shape);
// The flat row-major offset of IDX in SHAPE (dims of extent 1 contribute nothing).
Expr flatten(const Index& idx, const Dims& shape);
// The multi-index of FLAT in SHAPE.
Index unflatten(const Expr& flat, const Dims& shape);
// The index into a numpy-broadcast input of shape IN_SHAPE for output index OUT_IDX.
Index broadcastIndex(const Index& outIdx, const Dims& inShape);

// The same on extents known only when the kernel runs (int64 expressions; an immediate 1 is a
// dim of extent 1, broadcast; a size in symbols is never broadcast, as type inference decided).
Expr productOf(const Index& extents);
Expr flatten(const Index& idx, const Index& extents);
Index unflatten(const Expr& flat, const Index& extents);
Index broadcastIndex(const Index& outIdx, const Index& inExtents);
// floor(a / b) and ceil(a / b) for b > 0, correct for negative a.
Expr floorDivBy(const Expr& a, int64_t b);
Expr ceilDivBy(const Expr& a, int64_t b);
int64_t ceilDiv(int64_t a, int64_t b);
Expr clampTo(const Expr& e, int64_t lo, int64_t hi);
Expr idx(int64_t v);
// The value -inf/+inf for floats, the extreme value for integers.
Expr lowest(DataType t);
Expr highest(DataType t);

}  // namespace kiln::kernel
