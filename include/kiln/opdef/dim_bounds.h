// The text form of symbols' bounds, one syntax for the command line, the Python API and the
// printed IR: "seq<=1024, 1<=batch<=8" (a minimum left out is 0).
#pragma once

#include <string>

#include "kiln/opdef/dim.h"

namespace kiln::opdef {

// The largest bound a symbol may have: sizes and their products stay far from int64's limit.
inline constexpr int64_t kMaxDimBound = int64_t{1} << 40;

// Reads comma-separated "[MIN<=]NAME<=MAX" entries; kiln::Error naming the entry and what was
// expected for a bad name, a missing or out-of-range bound, MIN > MAX or a symbol given twice.
DimBounds parseDimBounds(const std::string& text);
// "1<=batch<=8, seq<=1024": what parseDimBounds reads back.
std::string dimBoundsStr(const DimBounds& bounds);

}  // namespace kiln::opdef
