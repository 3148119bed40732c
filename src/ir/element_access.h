// Element-wise reads and writes of NDArrays of any scalar dtype, so constant evaluation and the
// text format need no per-dtype code.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/ir/graph.h"

namespace kiln::ir {

// bool, int8..64, uint8..64, float16/32/64, bfloat16, one lane: what constants may hold.
bool isScalarElementType(DataType t);

// Element I (row-major) of A. Integers read as double lose precision above 2^53: integer
// arithmetic goes through loadInt. loadInt truncates floats toward zero, saturating (NaN -> 0).
double loadDouble(const NDArray& a, int64_t i);
int64_t loadInt(const NDArray& a, int64_t i);
// Stores convert like a C cast, except that float -> integer saturates and NaN becomes 0, and
// bool stores v != 0.
void storeDouble(const NDArray& a, int64_t i, double v);
void storeInt(const NDArray& a, int64_t i, int64_t v);

// All elements of an integer (or bool) array.
std::vector<int64_t> loadInts(const NDArray& a);

// IEEE half and bfloat16 conversions, round-to-nearest-even.
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bfloat16ToFloat(uint16_t b);
uint16_t floatToBfloat16(float f);

}  // namespace kiln::ir
