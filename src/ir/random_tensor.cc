// SplitMix64-based tensor filling: tiny, portable and identical on every platform.
#include "kiln/ir/random_tensor.h"

#include <cmath>

#include "element_access.h"
#include "kiln/support/error.h"

namespace kiln::ir {

namespace {

uint64_t splitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

NDArray randomTensor(const TensorType& type, uint64_t seed, double low, double high) {
  if (!isScalarElementType(type.dtype)) {
    throw Error(strCat("cannot fill a random tensor of type ", type.dtype.str()));
  }
  bool isFloat = type.dtype.isFloat() || type.dtype.code == kDLBfloat;
  if (!(low < high)) {
    low = isFloat ? -1.0 : -8.0;
    high = isFloat ? 1.0 : 8.0;
  }
  NDArray a = NDArray::empty(type.shape, type.dtype);
  uint64_t state = seed;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double u = static_cast<double>(splitMix64(state) >> 11) * 0x1.0p-53;
    double v = low + (high - low) * u;
    if (type.dtype.isBool()) {
      storeInt(a, i, u >= 0.5 ? 1 : 0);
    } else if (isFloat) {
      storeDouble(a, i, v);
    } else {
      storeDouble(a, i, std::floor(v));
    }
  }
  return a;
}

}  // namespace kiln::ir
