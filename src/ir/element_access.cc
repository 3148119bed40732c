// One switch over dtypes for reading and writing single elements of constant tensors.
#include "element_access.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "kiln/support/error.h"

namespace kiln::ir {

namespace {

template <typename T>
T get(const NDArray& a, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(a.data()) + i * static_cast<int64_t>(sizeof(T)),
              sizeof(T));
  return v;
}

template <typename T>
void put(const NDArray& a, int64_t i, T v) {
  std::memcpy(static_cast<char*>(a.data()) + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

int64_t saturate(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

[[noreturn]] void unsupported(DataType t) {
  throw Error(strCat("constant data of type ", t.str(),
                     " is not supported; expected bool, (u)int8..64, float16/32/64 or bfloat16"));
}

}  // namespace

bool isScalarElementType(DataType t) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case kDLBool:
      return t.bits == 8;
    case kDLInt:
    case kDLUInt:
      return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLFloat:
      return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLBfloat:
      return t.bits == 16;
    default:
      return false;
  }
}

double loadDouble(const NDArray& a, int64_t i) {
  DataType t = a.dtype();
  if (!isScalarElementType(t)) unsupported(t);
  switch (t.code) {
    case kDLFloat:
      if (t.bits == 16) return halfToFloat(get<uint16_t>(a, i));
      if (t.bits == 32) return get<float>(a, i);
      return get<double>(a, i);
    case kDLBfloat:
      return bfloat16ToFloat(get<uint16_t>(a, i));
    case kDLUInt:
      if (t.bits == 64) return static_cast<double>(get<uint64_t>(a, i));
      return static_cast<double>(loadInt(a, i));
    default:
      return static_cast<double>(loadInt(a, i));
  }
}

int64_t loadInt(const NDArray& a, int64_t i) {
  DataType t = a.dtype();
  if (!isScalarElementType(t)) unsupported(t);
  switch (t.code) {
    case kDLBool:
      return get<uint8_t>(a, i) != 0;
    case kDLInt:
      switch (t.bits) {
        case 8:
          return get<int8_t>(a, i);
        case 16:
          return get<int16_t>(a, i);
        case 32:
          return get<int32_t>(a, i);
        default:
          return get<int64_t>(a, i);
      }
    case kDLUInt:
      switch (t.bits) {
        case 8:
          return get<uint8_t>(a, i);
        case 16:
          return get<uint16_t>(a, i);
        case 32:
          return get<uint32_t>(a, i);
        default:
          return static_cast<int64_t>(get<uint64_t>(a, i));
      }
    default:
      return saturate(loadDouble(a, i));
  }
}

void storeDouble(const NDArray& a, int64_t i, double v) {
  DataType t = a.dtype();
  if (!isScalarElementType(t)) unsupported(t);
  switch (t.code) {
    case kDLFloat:
      if (t.bits == 16) return put<uint16_t>(a, i, floatToHalf(static_cast<float>(v)));
      if (t.bits == 32) return put<float>(a, i, static_cast<float>(v));
      return put<double>(a, i, v);
    case kDLBfloat:
      return put<uint16_t>(a, i, floatToBfloat16(static_cast<float>(v)));
    case kDLBool:
      return put<uint8_t>(a, i, v != 0.0 ? 1 : 0);
    case kDLUInt:
      if (t.bits == 64 && v >= 9.2233720368547758e18) {
        return put<uint64_t>(a, i,
                             v >= 1.8446744073709552e19 ? ~uint64_t{0} : static_cast<uint64_t>(v));
      }
      if (v < 0) return storeInt(a, i, 0);
      return storeInt(a, i, saturate(v));
    default: {
      // Saturate to the element's own range, so e.g. 300.0 -> int8 gives 127, not a wrap.
      int64_t lo =
          t.bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits - 1));
      int64_t hi =
          t.bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (t.bits - 1)) - 1;
      int64_t x = saturate(v);
      return storeInt(a, i, x < lo ? lo : (x > hi ? hi : x));
    }
  }
}

void storeInt(const NDArray& a, int64_t i, int64_t v) {
  DataType t = a.dtype();
  if (!isScalarElementType(t)) unsupported(t);
  switch (t.code) {
    case kDLBool:
      return put<uint8_t>(a, i, v != 0 ? 1 : 0);
    case kDLInt:
    case kDLUInt:
      switch (t.bits) {
        case 8:
          return put<uint8_t>(a, i, static_cast<uint8_t>(v));
        case 16:
          return put<uint16_t>(a, i, static_cast<uint16_t>(v));
        case 32:
          return put<uint32_t>(a, i, static_cast<uint32_t>(v));
        default:
          return put<uint64_t>(a, i, static_cast<uint64_t>(v));
      }
    default:
      // int64 -> float32 directly: through double it could round twice.
      if (t.code == kDLFloat && t.bits == 32) return put<float>(a, i, static_cast<float>(v));
      return storeDouble(a, i, static_cast<double>(v));
  }
}

std::vector<int64_t> loadInts(const NDArray& a) {
  std::vector<int64_t> result(static_cast<size_t>(a.numel()));
  for (int64_t i = 0; i < a.numel(); ++i) result[static_cast<size_t>(i)] = loadInt(a, i);
  return result;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  auto sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t mant = x & 0x7fffff;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    int shift = 14 - e;
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // a carry rounds up to inf
  return static_cast<uint16_t>(sign | half);
}

float bfloat16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffff)) {
    return static_cast<uint16_t>((x >> 16) | 0x40);  // keep NaN a NaN
  }
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

}  // namespace kiln::ir
