// Row-block copies between compact tensors and tensors laid out for a cache's capacity.
#include "cache_layout.h"

#include <cstring>

#include "kiln/support/error.h"

namespace kiln::runtime {

void copyLaidOut(const NDArray& src, RowLayout from, NDArray& dst, RowLayout to) {
  if (from.compact() && to.compact()) return dst.copyFrom(src);
  const Shape& shape = src.shape();
  if (shape != dst.shape() || src.dtype() != dst.dtype()) {
    throw Error(strCat("cannot copy ", src.dtype().str(), shapeStr(shape), " into ",
                       dst.dtype().str(), shapeStr(dst.shape()),
                       "; expected the same shape and dtype"));
  }
  KILN_CHECK(!src.dtype().isString(), "a cache of strings");
  if (dst.readOnly()) {
    throw Error(strCat("cannot copy into ", dst.dtype().str(), shapeStr(dst.shape()),
                       ": it is a read-only view (weights mapped from an artifact or a params "
                       "file); clone() it first"));
  }
  int64_t axis = from.compact() ? to.axis : from.axis;
  KILN_CHECK(axis < static_cast<int64_t>(shape.size()) &&
                 (from.compact() || to.compact() || from.axis == to.axis),
             "laid-out copy on axes ", from.axis, " and ", to.axis, " of ", shapeStr(shape));
  auto a = static_cast<size_t>(axis);
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < a; ++d) outer *= shape[d];
  for (size_t d = a + 1; d < shape.size(); ++d) inner *= shape[d];
  int64_t length = shape[a];
  int64_t srcRows = from.compact() ? length : from.rows;
  int64_t dstRows = to.compact() ? length : to.rows;
  KILN_CHECK(length <= srcRows && length <= dstRows, "a cache of ", length, " rows laid out for ",
             srcRows, " and ", dstRows);
  auto rowBytes = static_cast<size_t>(inner) * src.dtype().bytes();
  const auto* s = static_cast<const uint8_t*>(src.data());
  auto* t = static_cast<uint8_t*>(dst.data());
  for (int64_t o = 0; o < outer; ++o) {
    std::memmove(t + static_cast<size_t>(o * dstRows) * rowBytes,
                 s + static_cast<size_t>(o * srcRows) * rowBytes,
                 static_cast<size_t>(length) * rowBytes);
  }
}

}  // namespace kiln::runtime
