// Parsing --input-shapes "name:[d0,d1,...] other:[...]" and --dim-bounds "seq<=1024,...".
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "kiln/opdef/dim.h"

namespace kiln::cli {

// A dimension: a size written in decimal, or a symbol's name; throws a usage error naming WHAT
// and TEXT when it is neither, or a size not below 2^62.
opdef::Dim parseDim(const std::string& text, const std::string& what);

// Throws a usage error naming the part that does not parse and the expected form.
std::map<std::string, opdef::DimList> parseInputShapes(const std::string& text);

// --dim-bounds; a usage error naming the entry and the expected form.
opdef::DimBounds parseDimBoundsOption(const std::string& text);

}  // namespace kiln::cli
