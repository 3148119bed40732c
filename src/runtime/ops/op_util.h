// Helpers the runtime's op implementations share: errors naming the node, attribute and input
// readers, and loops over output indices.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../executor_util.h"
#include "kiln/opdef/op_view.h"
#include "kiln/runtime/runtime_op.h"
#include "kiln/support/error.h"

namespace kiln::runtime::ops {

template <typename... Args>
[[noreturn]] void fail(const RuntimeOpContext& ctx, Args&&... args) {
  throw Error(strCat(ctx.label(), ": ", std::forward<Args>(args)...));
}

int64_t attrInt(const RuntimeOpContext& ctx, const std::string& name, int64_t dflt);
double attrFloat(const RuntimeOpContext& ctx, const std::string& name, double dflt);
std::string attrString(const RuntimeOpContext& ctx, const std::string& name,
                       const std::string& dflt);
std::vector<int64_t> attrInts(const RuntimeOpContext& ctx, const std::string& name);
// A list of numbers (ints accepted) as doubles; empty when absent.
std::vector<double> attrFloats(const RuntimeOpContext& ctx, const std::string& name);
bool hasAttr(const RuntimeOpContext& ctx, const std::string& name);
// A tensor attribute ({"dtype", "shape", "data"}), or an undefined array when absent.
NDArray attrTensor(const RuntimeOpContext& ctx, const std::string& name);

// The elements of an integer input (WHAT names it in errors).
std::vector<int64_t> inputInts(const RuntimeOpContext& ctx, size_t i, const char* what);
// A scalar (or one-element) input as int64 / double.
int64_t inputScalarInt(const RuntimeOpContext& ctx, size_t i, const char* what);
double inputScalarDouble(const RuntimeOpContext& ctx, size_t i, const char* what);

// AXIS in [-rank, rank-1] -> [0, rank); an error naming WHAT otherwise.
int64_t normalizeAxis(const RuntimeOpContext& ctx, int64_t axis, int64_t rank,
                      const char* what = "axis");

// V (a size or an index computed in floating point) as an int64; fails naming WHAT when it is
// NaN or beyond +-4e18.
int64_t toInt64(const RuntimeOpContext& ctx, double v, const char* what);

// A's elements as doubles (any numeric dtype), and V stored into Y in Y's dtype.
std::vector<double> toDoubles(const RuntimeOpContext& ctx, const NDArray& a);
void storeDoubles(const RuntimeOpContext& ctx, NDArray& y, const std::vector<double>& v);

std::vector<int64_t> rowMajorStrides(const Shape& shape);  // in elements

// SHAPE seen as [outer, n, inner] around AXIS: element (o, i, j) is at (o * n + i) * inner + j.
struct AroundAxis {
  int64_t outer = 1, n = 1, inner = 1;
};
AroundAxis aroundAxis(const Shape& shape, size_t axis);

// The output of X's slices KEEP (indices along AXIS of IN, X's shape or its flattening), in order.
NDArray takeSlices(RuntimeOpContext& ctx, const NDArray& x, const Shape& in, size_t axis,
                   const std::vector<int64_t>& keep);
using opdef::listStr;  // "[1,2,3]"

// Output I shaped like X, holding a copy of X's elements (strings copied as strings).
NDArray copyToOutput(RuntimeOpContext& ctx, size_t i, const NDArray& x);

// Writes every element of DST from the element of SRC that SRC_INDEX(out multi-index) names
// (a flat element index into SRC); elements are copied as bytes, so any dtype works.
template <typename SrcIndex>
void gatherElements(const NDArray& src, NDArray& dst, SrcIndex srcIndex) {
  const Shape& shape = dst.shape();
  int64_t n = dst.numel();
  size_t bytes = dst.dtype().bytes();
  const auto* in = static_cast<const char*>(src.data());
  auto* out = static_cast<char*>(dst.data());
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t s = srcIndex(idx);
    std::memcpy(out + static_cast<size_t>(e) * bytes, in + static_cast<size_t>(s) * bytes, bytes);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

// Calls F with a value of the C++ type of DT (float, double, intN_t, uintN_t, bool); any other
// dtype is an error naming the op.
// Calls F(element, index) for every element of SHAPE in row-major order.
template <typename F>
void forEachIndex(const Shape& shape, F f) {
  std::vector<int64_t> idx(shape.size(), 0);
  int64_t n = shapeNumel(shape);
  for (int64_t e = 0; e < n; ++e) {
    f(e, idx);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

template <typename F>
void visitNumeric(const RuntimeOpContext& ctx, DataType dt, F&& f) {
  if (dt.lanes != 1) fail(ctx, "vector dtype ", dt.str(), " is not supported");
  switch (dt.code) {
    case kDLFloat:
      if (dt.bits == 32) return f(float{});
      if (dt.bits == 64) return f(double{});
      break;
    case kDLInt:
      if (dt.bits == 8) return f(int8_t{});
      if (dt.bits == 16) return f(int16_t{});
      if (dt.bits == 32) return f(int32_t{});
      if (dt.bits == 64) return f(int64_t{});
      break;
    case kDLUInt:
      if (dt.bits == 8) return f(uint8_t{});
      if (dt.bits == 16) return f(uint16_t{});
      if (dt.bits == 32) return f(uint32_t{});
      if (dt.bits == 64) return f(uint64_t{});
      break;
    case kDLBool:
      return f(bool{});
    default:
      break;
  }
  fail(ctx, "dtype ", dt.str(), " is not supported here; expected float32, float64, bool or an ",
       "integer type");
}

}  // namespace kiln::runtime::ops
