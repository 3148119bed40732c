// Parsing --input-shapes "name:[d0,d1,...] other:[...]".
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "kiln/runtime/ndarray.h"

namespace kiln::cli {

// A dimension written in decimal; throws kiln::Error naming WHAT and TEXT when it is not a
// number below 2^62.
int64_t parseDim(const std::string& text, const std::string& what);

// Throws kiln::Error naming the part that does not parse and the expected form.
std::map<std::string, runtime::Shape> parseInputShapes(const std::string& text);

}  // namespace kiln::cli
