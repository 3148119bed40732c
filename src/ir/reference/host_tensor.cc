// HostTensor: the references' tensor of doubles, and its conversions to and from NDArray.
#include <cmath>

#include "../element_access.h"
#include "kiln/ir/reference.h"
#include "kiln/support/error.h"

namespace kiln::ir::reference {

HostTensor zeros(const Shape& shape, DataType dtype) {
  HostTensor t{shape, dtype, {}};
  t.data.assign(static_cast<size_t>(t.numel()), 0.0);
  return t;
}

HostTensor rounded(HostTensor t) {
  for (double& v : t.data) {
    if (t.dtype == DataType::float32()) {
      v = static_cast<float>(v);
    } else if (t.dtype == DataType::float16()) {
      v = halfToFloat(floatToHalf(static_cast<float>(v)));
    } else if (t.dtype.code == kDLBfloat) {
      v = bfloat16ToFloat(floatToBfloat16(static_cast<float>(v)));
    } else if (t.dtype.isBool()) {
      v = v != 0 ? 1 : 0;
    } else if (t.dtype.isInt() || t.dtype.isUInt()) {
      v = std::trunc(v);
    }
  }
  return t;
}

NDArray toNDArray(const HostTensor& t) {
  KILN_CHECK(isScalarElementType(t.dtype), "reference tensors hold scalar dtypes, not ",
             t.dtype.str());
  NDArray a = NDArray::empty(t.shape, t.dtype);
  for (int64_t i = 0; i < t.numel(); ++i) storeDouble(a, i, t.at(i));
  return a;
}

HostTensor fromNDArray(const NDArray& a) {
  KILN_CHECK(isScalarElementType(a.dtype()), "reference tensors hold scalar dtypes, not ",
             a.dtype().str());
  HostTensor t = zeros(a.shape(), a.dtype());
  for (int64_t i = 0; i < t.numel(); ++i) t.at(i) = loadDouble(a, i);
  return t;
}

}  // namespace kiln::ir::reference
